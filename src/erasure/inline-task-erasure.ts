import type { BusMessage } from "../bus/port.ts";
import type { EventStore } from "../core/event-store.ts";
import type { RecordedEvent } from "../core/event.ts";
import { deliverTo, type Worker } from "../core/worker.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { DataKeyStore } from "./data-keys.ts";
import { cleanupsBeforeErasure, taskErasureWorker } from "./task-erasure-worker.ts";

export type InlineTaskErasureParts = {
  store: EventStore;
  blobs: BlobStore;
  documents: DocumentStore;
  transcripts: TranscriptStore;
  keys: Pick<DataKeyStore, "erase" | "find">;
};

/**
 * The workers that remove a deleted task's files, built here rather than found among the process's workers: an api
 * process (or `bun run admin erase`) runs none. Imported on first use: the export worker brings its renderers.
 */
async function cleanupWorkers({ store, blobs, documents, transcripts }: InlineTaskErasureParts): Promise<Map<string, Worker>> {
  const [{ taskMediaWorker }, { taskTranscriptsWorker }, { exportWorker }, { deletedTaskChunksWorker }] = await Promise.all([
    import("../tasks/task-media-worker.ts"),
    import("../tasks/task-transcripts-worker.ts"),
    import("../exports/export-worker.ts"),
    import("../transcription/deleted-task-chunks-worker.ts"),
  ]);
  const built: Worker[] = [
    taskMediaWorker(store, blobs, documents),
    taskTranscriptsWorker(store, blobs, documents),
    exportWorker(store, blobs, transcripts),
    deletedTaskChunksWorker(blobs),
  ];
  const byName = new Map(built.map((worker) => [worker.name, worker]));
  const missing = cleanupsBeforeErasure.filter((name) => !byName.has(name));
  if (missing.length > 0) throw new Error(`inline task erasure: no cleanup worker named ${missing.join(", ")}`);
  return byName;
}

/** What a delivery of the bus would carry; the workers run here read only the event, and have nothing to extend. */
const inlineMessage = (event: RecordedEvent): BusMessage => ({
  subject: `scribe.task.${event.type}`,
  id: event.id,
  data: new Uint8Array(0),
  deliveryCount: 1,
  inProgress: () => {},
});

/**
 * A deleted task's erasure run here and now, as the task-erasure worker runs it on its TaskDeleted (its files removed,
 * its kept answers forgotten, then its keys destroyed), for an account erasure, which must not destroy the account's
 * keys before every task's files are gone: the media's path is personal, and a worker coming later would read it erased
 * and remove nothing. The worker's own delivery afterwards finds nothing left to do.
 */
export class InlineTaskErasure {
  private worker: Promise<Worker> | null = null;

  constructor(private readonly parts: InlineTaskErasureParts) {}

  /** `deleted`: the task's TaskDeleted as stored. */
  async erase(deleted: RecordedEvent): Promise<void> {
    await deliverTo(await this.taskErasure(), deleted, inlineMessage(deleted));
  }

  private taskErasure(): Promise<Worker> {
    this.worker ??= cleanupWorkers(this.parts).then((byName) => {
      const { store, keys, documents } = this.parts;
      const worker: Worker = taskErasureWorker({ store, keys, documents }, { workerNamed: (name) => byName.get(name) });
      return worker;
    });
    return this.worker;
  }
}
