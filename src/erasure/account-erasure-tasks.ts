import { isOneOf, type EventMetadata, type RecordedEvent } from "../core/event.ts";
import { NotFoundError } from "../core/errors.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import type { AdmissionEvent } from "../tasks/admission.ts";
import type { TaskEvent } from "../tasks/events.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { taskScope } from "./key-scopes.ts";
import type { InlineTaskErasure } from "./inline-task-erasure.ts";

const isAdmission = isOneOf<Extract<AdmissionEvent, { type: "TaskAdmitted" }>>(["TaskAdmitted"]);
const isDeletion = isOneOf<Extract<TaskEvent, { type: "TaskDeleted" }>>(["TaskDeleted"]);

/**
 * Every task the account ever had: each admission recorded on its own stream (every creation and retry takes a slot
 * there, src/tasks/admission.ts), with the tasks read model's, for a task made before admissions were recorded. The
 * log's list misses no task the read model has not caught up with yet.
 */
export async function accountTaskIds(db: DocumentStore, userId: number, history: readonly RecordedEvent[]): Promise<number[]> {
  const ids = new Set<number>();
  for (const event of history.filter(isAdmission)) ids.add(event.data.taskId);
  for (const task of await db.collection<TaskDocument>("tasks").find({ userId })) ids.add(task.id);
  return [...ids].sort((a, b) => a - b);
}

export type AccountTasksParts = {
  tasks: Pick<Tasks, "commands" | "slots">;
  keys: Pick<DataKeyStore, "find">;
  inline: InlineTaskErasure;
};

/**
 * Deletes the account's live tasks (each through the tasks' own command, its slot given back), then erases each of its
 * deleted tasks whose key still stands as the task-erasure worker would: files first, key last. A task's erased key
 * says its erasure is done, so a second run (the AccountErased worker beside the request, or a run carrying on an
 * interrupted one) skips it. Returns how many tasks it deleted, and the streams of the account's tasks.
 */
export async function eraseAccountTasks(
  parts: AccountTasksParts,
  userId: number,
  ids: readonly number[],
  metadata: EventMetadata,
): Promise<{ deleted: number; streams: Set<string> }> {
  const { tasks } = parts;
  let deleted = 0;
  for (const taskId of ids) {
    const { state } = await tasks.commands.state(taskId);
    if (state.status !== "live" || state.userId !== userId) continue;
    try {
      await tasks.commands.run(taskId, { type: "DeleteTask" }, { metadata });
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // deleted meanwhile
      continue;
    }
    deleted++;
    await tasks.slots.release(userId, taskId, state.attempts, metadata);
  }
  const streams = new Set<string>();
  for (const taskId of ids) {
    const stream = await eraseDeletedTask(parts, userId, taskId);
    if (stream !== null) streams.add(stream);
  }
  return { deleted, streams };
}

/**
 * How many of the account's tasks this erasure deleted, whoever ran the command: the request (or `bun run admin erase`)
 * or the AccountErased worker beside it, which reacts in the same correlation and may get to a task first, or finish
 * before the request lists any. A task its owner deleted before is not counted.
 */
export async function tasksDeletedBy(tasks: Pick<Tasks, "commands">, userId: number, ids: readonly number[], correlationId: string): Promise<number> {
  let deleted = 0;
  for (const taskId of ids) {
    const deletion = (await tasks.commands.events(taskId)).filter(isDeletion).at(-1);
    if (deletion?.data.userId === userId && deletion.metadata.correlationId === correlationId) deleted++;
  }
  return deleted;
}

/**
 * The task's erasure, unless its key is gone already (done) or it is not a deleted task of this account; its stream's
 * name, or null when it has none.
 */
async function eraseDeletedTask({ tasks, keys, inline }: AccountTasksParts, userId: number, taskId: number): Promise<string | null> {
  if ((await keys.find(taskScope(taskId))) === "erased") return (await tasks.commands.events(taskId, { maxCount: 1 })).at(0)?.streamName ?? null;
  const events = await tasks.commands.events(taskId);
  const deleted = events.filter(isDeletion).at(-1);
  if (deleted && deleted.data.userId === userId) await inline.erase(deleted);
  return events.at(0)?.streamName ?? null;
}
