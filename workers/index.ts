import type { EventStore } from "../src/core/event-store.ts";
import type { BlobStore } from "../src/blobs/port.ts";
import type { TranscriptStore } from "../src/tasks/transcripts.ts";
import type { Worker } from "../src/core/worker.ts";
import { Semaphore } from "../src/core/semaphore.ts";
import { taskSlotWorker } from "../src/tasks/task-slots-worker.ts";
import { taskMediaWorker } from "../src/tasks/task-media-worker.ts";
import { suppliedTranscriptWorker } from "../src/transcription/supplied-transcripts-worker.ts";
import { exportWorker } from "../src/exports/export-worker.ts";
import { fetchMediaWorker } from "../src/tasks/fetch-media-worker.ts";
import { defaultMediaFetchSettings, type MediaFetchSettings } from "../src/media/fetch-media.ts";
import { loadTranscriptionConfig, type TranscriptionConfig } from "../src/transcription/config.ts";
import { transcriptionWorkers } from "../src/transcription/workers.ts";

export type WorkerDependencies = {
  eventStore: EventStore;
  blobs: BlobStore;
  transcripts: TranscriptStore;
  mediaFetch?: MediaFetchSettings;
  transcription?: TranscriptionConfig;
  /** Shared with the API's large bodies (HEAVY_WORK_AT_ONCE); a process without an API gets its own. */
  heavyWork?: Semaphore;
};

/** Every worker of the service; each runs as a durable consumer on the bus. */
export function createWorkers({ eventStore, blobs, transcripts, mediaFetch, transcription, heavyWork = new Semaphore(1) }: WorkerDependencies): Worker[] {
  const pipeline = transcriptionWorkers(eventStore, blobs, transcripts, transcription ?? loadTranscriptionConfig({}, (m) => new Error(m)));
  return [
    taskSlotWorker(eventStore),
    suppliedTranscriptWorker(eventStore, transcripts, pipeline.summarizer, heavyWork),
    ...pipeline.workers,
    fetchMediaWorker(eventStore, blobs, mediaFetch ?? defaultMediaFetchSettings),
    exportWorker(eventStore, blobs, transcripts),
    taskMediaWorker(eventStore, blobs),
  ];
}
