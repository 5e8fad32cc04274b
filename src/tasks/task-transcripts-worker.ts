import type { EventStore } from "../core/event-store.ts";
import { isOneOf, type RecordedEvent } from "../core/event.ts";
import type { BlobStore } from "../blobs/port.ts";
import { isValidBlobKey } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Worker } from "../core/worker.ts";
import { taskIdOfStream, type TaskEvent } from "./events.ts";
import { taskTranscriptsPrefix } from "./transcripts.ts";
import { transcriptHeldByAnotherTask } from "./blob-holders.ts";

type NamingTranscript = Extract<TaskEvent, { type: "TaskCreated" | "TaskFinished" | "TranscriptEdited" }>;
const namingTranscripts = isOneOf<NamingTranscript>(["TaskCreated", "TaskFinished", "TranscriptEdited"]);

/** Every transcript blob the task's stream names: supplied, recognised by each attempt, each edit. */
function transcriptKeys(events: readonly RecordedEvent[]): Set<string> {
  const keys = new Set<string>();
  for (const event of events.filter(namingTranscripts)) {
    const key = event.data.transcript?.key;
    if (key && isValidBlobKey(key)) keys.add(key);
  }
  return keys;
}

/**
 * Deletes a deleted task's transcripts, every version, so its words are gone from the blob store and not merely
 * unlisted (DESIGN.md, "Personal data in an immutable log"). Those under the task's own prefix are its alone. One
 * stored before transcripts had task prefixes (`transcripts/<aa>/<sha256>.json`) may be another task's words
 * too, and stays while another task's transcript is that blob; no event written since names such a key, so
 * the read model it asks cannot be missing a newer holder. Deleting a missing blob is no error: a redelivery
 * is harmless. Segments carried inline by events older still are in the log, not in a blob: nothing here reaches them.
 */
export function taskTranscriptsWorker(store: EventStore, blobs: BlobStore, documents: DocumentStore): Worker<Extract<TaskEvent, { type: "TaskDeleted" }>> {
  return {
    name: "task-transcripts",
    subject: "scribe.task.TaskDeleted",
    eventTypes: ["TaskDeleted"],
    async handle(recorded) {
      const taskId = taskIdOfStream(recorded.streamName);
      if (taskId === null) return;
      for (const key of transcriptKeys(await store.readStream(recorded.streamName))) {
        if (!key.startsWith(taskTranscriptsPrefix(taskId)) && (await transcriptHeldByAnotherTask(store, documents, taskId, key))) continue;
        await blobs.delete(key);
      }
    },
  };
}
