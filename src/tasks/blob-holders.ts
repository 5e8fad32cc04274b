import type { EventStore } from "../core/event-store.ts";
import { loadState } from "../core/state-cache.ts";
import type { DocumentStore, Filter } from "../readmodels/port.ts";
import { taskDecider } from "./decider.ts";
import { taskStream } from "./events.ts";
import type { TaskDocument, TranscriptDocument } from "./tasks-projection.ts";

/**
 * Whether a task other than `taskId` still holds a blob a deleted task named: a deletion leaves such a blob where
 * it is. Two tasks can name one blob: a task created by hand on an upload another task was made from, or two tasks
 * with the same words before transcripts had task prefixes (transcripts.ts). The read model finds the candidates;
 * each one's own stream says whether it still lives, since the read model may not have folded its deletion yet
 * (two such tasks deleted together would otherwise each keep the blob for the other).
 */
async function heldByAnother(store: EventStore, documents: DocumentStore, collection: "tasks" | "transcripts", filter: Filter, taskId: number) {
  // Few documents: tasks that name this very key.
  for (const holder of await documents.collection<TaskDocument | TranscriptDocument>(collection).find(filter)) {
    if (holder._id === String(taskId)) continue;
    if ((await loadState(store, taskStream(holder._id), taskDecider)).state.status === "live") return true;
  }
  return false;
}

/** Another of the owner's tasks reads its media from `key`. */
export const mediaHeldByAnotherTask = (store: EventStore, documents: DocumentStore, taskId: number, userId: number, key: string) =>
  heldByAnother(store, documents, "tasks", { userId, path: key }, taskId);

/** Another task's current transcript is the blob `key` (a task never reads its older versions). */
export const transcriptHeldByAnotherTask = (store: EventStore, documents: DocumentStore, taskId: number, key: string) =>
  heldByAnother(store, documents, "transcripts", { "transcript.key": key }, taskId);
