import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import { isOneOf } from "../core/event.ts";
import { taskIdOfStream, taskStream, type TaskEvent } from "./events.ts";
import { ownsMediaKey } from "../media/ownership.ts";
import type { Worker } from "../core/worker.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { mediaHeldByAnotherTask } from "./blob-holders.ts";

const namingMedia = isOneOf<Extract<TaskEvent, { type: "TaskCreated" | "MediaFetched" }>>(["TaskCreated", "MediaFetched"]);

/**
 * Deletes a task's media with the task: its upload (`objstore`) and any media fetched for it, as long as
 * they are its owner's (under the owner's prefix; see media/ownership.ts). A deleted task's files are
 * then gone, not merely unlisted. A file another of the owner's tasks reads (a task created by hand on the path of
 * an upload) stays while that task does. Deleting a missing file is no error, so redeliveries are harmless.
 */
export function taskMediaWorker(store: EventStore, blobs: BlobStore, documents: DocumentStore): Worker<Extract<TaskEvent, { type: "TaskDeleted" }>> {
  return {
    name: "task-media",
    subject: "scribe.task.TaskDeleted",
    eventTypes: ["TaskDeleted"],
    async handle(recorded) {
      const taskId = taskIdOfStream(recorded.streamName);
      if (taskId === null) return;
      const keys = new Set<string>();
      let userId: number | null = null;
      for (const event of (await store.readStream(taskStream(taskId))).filter(namingMedia)) {
        if (event.type === "TaskCreated") {
          userId = event.data.userId;
          if (event.data.disk === "objstore") keys.add(event.data.path);
        } else if (event.type === "MediaFetched") keys.add(event.data.path);
      }
      if (userId === null) return;
      for (const key of keys) {
        if (ownsMediaKey(userId, key) && !(await mediaHeldByAnotherTask(store, documents, taskId, userId, key))) await blobs.delete(key);
      }
    },
  };
}
