import type { DocumentStore, Filter } from "../readmodels/port.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import type { FolderDocument } from "../folders/folders-projection.ts";
import type { Tasks } from "../tasks/service.ts";
import { isOneOf } from "../core/event.ts";
import type { TaskEvent } from "../tasks/events.ts";
import { ownsMediaKey } from "../media/ownership.ts";

/** Tasks read from the read model at a time: a page's documents are all an export holds of the task list. */
const pageSize = 100;

/**
 * The user's tasks, newest first, a page at a time, each page after the last id seen (never an offset: a task deleted
 * meanwhile shifts no later page, so none is skipped or given twice). On the `tasks` read model's `{userId, id}` index.
 */
export async function* tasksOf(db: DocumentStore, userId: number): AsyncGenerator<TaskDocument> {
  let below: number | null = null;
  for (;;) {
    const filter: Filter = below === null ? { userId } : { userId, id: { $lt: below } };
    const page = await db.collection<TaskDocument>("tasks").find(filter, { sort: { id: -1 }, limit: pageSize });
    yield* page;
    if (page.length < pageSize) return;
    below = page[page.length - 1]!.id;
  }
}

/** The user's folders, as `GET /api/folders` names them (without the counts, which the tasks tell). */
export async function foldersOf(db: DocumentStore, userId: number): Promise<{ id: number; name: string }[]> {
  const folders = await db.collection<FolderDocument>("folders").find({ userId }, { sort: { id: 1 } });
  return folders.map(({ id, name }) => ({ id, name }));
}

const mediaFetched = isOneOf<Extract<TaskEvent, { type: "MediaFetched" }>>(["MediaFetched"]);

/**
 * The blob keys of a task's media: its upload (`objstore`: the task's path), or what was fetched for its link (each
 * MediaFetched of its stream: a retry may fetch again). Only keys under the owner's own prefix, as the audio route
 * serves (src/media/ownership.ts): a task created by hand on another account's path exports nothing of it.
 */
export async function mediaKeysOf(tasks: Tasks, task: Pick<TaskDocument, "id" | "userId" | "disk" | "path">): Promise<string[]> {
  if (task.disk === "objstore") return ownsMediaKey(task.userId, task.path) ? [task.path] : [];
  const fetched = (await tasks.commands.events(task.id)).filter(mediaFetched).map((event) => event.data.path);
  return [...new Set(fetched)].filter((key) => ownsMediaKey(task.userId, key));
}
