import type { EventStore } from "../src/eventstore/port.ts";
import type { BlobStore } from "../src/blobs/port.ts";
import type { TranscriptStore } from "../src/tasks/transcripts.ts";
import type { Worker } from "./worker.ts";
import { Semaphore } from "../src/core/semaphore.ts";
import { taskSlotWorker } from "./task-slots.ts";
import { taskMediaWorker } from "./task-media.ts";
import { suppliedTranscriptWorker } from "./supplied-transcripts.ts";
import { exportWorker } from "./exports.ts";
import { fetchMediaWorker } from "./fetch-media.ts";
import { defaultMediaFetchSettings, type MediaFetchSettings } from "../src/media/fetch-media.ts";
import { loadTranscriptionConfig, type TranscriptionConfig } from "../src/transcription/config.ts";
import { transcriptionWorkers } from "./transcription-workers.ts";

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
