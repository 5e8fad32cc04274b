import type { BusMessage } from "../bus/port.ts";
import type { WorkerLookup } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { Recorded } from "../core/event.ts";
import { deliverTo, type Worker } from "../core/worker.ts";
import { taskIdOf, type TaskEvent } from "../tasks/events.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { forgetKeptTaskAnswers } from "./kept-task-answers.ts";
import { taskScope, uploadOfPath, uploadScope } from "./key-scopes.ts";
import { forgetDecryptedFields } from "./decrypted-fields.ts";

type TaskDeleted = Extract<TaskEvent, { type: "TaskDeleted" }>;

/**
 * The other workers that remove a deleted task's files, by name. They find the files from the task's stream, and the
 * media's path is personal (encrypted under the task's key): each is run here before the key is destroyed, so none
 * depends on running first. Each is idempotent, and on its own delivery after the erasure it names nothing it cannot
 * read (an erased path is no key of the owner's) and so removes nothing twice.
 */
export const cleanupsBeforeErasure = ["task-media", "task-transcripts", "exports", "deleted-task-chunks"] as const;

/**
 * Crypto-shredding of a deleted task (DESIGN.md, "Personal data in an immutable log"): once its files are removed,
 * destroys the task's data key, so the personal fields of its events (name, file name, URL, path, transcript text
 * carried inline, summary, mind map) read `"[erased]"` for good, in every copy of the log, while the facts stay. The
 * key of the upload it was made from goes too (the upload's file name), and the answers kept for Idempotency-Key retries
 * that show the task (kept-task-answers.ts). A redelivery finds the keys erased and nothing left: no-op.
 */
export type TaskErasureParts = { store: EventStore; keys: Pick<DataKeyStore, "erase" | "find">; documents: DocumentStore };

export function taskErasureWorker({ store, keys, documents }: TaskErasureParts, others: WorkerLookup): Worker<TaskDeleted> {
  return {
    name: "task-erasure",
    subject: "scribe.task.TaskDeleted",
    eventTypes: ["TaskDeleted"],
    async handle(recorded: Recorded<TaskDeleted>, message: BusMessage) {
      const taskId = taskIdOf(recorded);
      if (taskId === null) return;
      for (const name of cleanupsBeforeErasure) {
        const cleanup = others.workerNamed(name);
        if (cleanup) await deliverTo(cleanup, recorded, message);
      }
      const uploads = new Set<string>();
      for (const event of await store.readStream(recorded.streamName)) {
        const path = event.type === "TaskCreated" ? (event.data as { path?: unknown }).path : null;
        const upload = typeof path === "string" ? uploadOfPath(path) : null;
        if (upload !== null) uploads.add(upload);
      }
      await forgetKeptTaskAnswers(documents, recorded.data.userId, taskId);
      const scopes = [taskScope(taskId), ...[...uploads].map(uploadScope)];
      for (const scope of scopes) await keys.erase(scope, recorded.data.userId);
      // This process's copy of their plaintext, decrypted while the keys lived, goes with them.
      await forgetDecryptedFields(keys, scopes);
    },
  };
}
