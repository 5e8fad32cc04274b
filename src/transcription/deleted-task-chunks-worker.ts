import type { BlobStore } from "../blobs/port.ts";
import type { Worker } from "../core/worker.ts";
import { maxRetries } from "../tasks/events.ts";
import { taskIdOf } from "../tasks/commands.ts";
import { clearChunkResults } from "./chunk-results.ts";

/**
 * Deletes what recognition kept of a deleted task's attempts (chunk-results.ts). An attempt in progress clears its
 * own when the deletion cancels it; this is for one whose worker died or was stopped, whose redelivery then finds
 * the task deleted and never runs. Every attempt a task can have is looked at: a handful of reads, most finding
 * nothing. Deleting a missing blob is no error, so a redelivery is harmless.
 */
export function deletedTaskChunksWorker(blobs: BlobStore): Worker {
  return {
    name: "deleted-task-chunks",
    subject: "scribe.task.TaskDeleted",
    async handle(recorded) {
      const taskId = taskIdOf(recorded);
      if (taskId === null) return;
      for (let attempt = 1; attempt <= maxRetries + 1; attempt++) await clearChunkResults(blobs, taskId, attempt);
    },
  };
}
