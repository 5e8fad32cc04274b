/** The transcription capability: the API's summary and status routes, and the workers that recognise and summarise. */
import type { Worker } from "../core/worker.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { TranscriptionConfig } from "./config.ts";
import { Semaphore } from "../core/semaphore.ts";
import { loadTranscriptionConfig } from "./config.ts";
import { transcriptionWorkers } from "./workers.ts";
import { suppliedTranscriptWorker } from "./supplied-transcripts-worker.ts";
import { deletedTaskChunksWorker } from "./deleted-task-chunks-worker.ts";

export { createSummarizer } from "./summary/index.ts";
export { Summaries } from "./summaries.ts";
export { transcriptionRoutes } from "./routes.ts";
export { startStuckTaskSweeper } from "./stuck-tasks-job.ts";
export { sweepTemporaryMedia, transcriptionTempRoot } from "./temp-sweep.ts";

export type TranscriptionWorkerDependencies = {
  eventStore: EventStore;
  blobs: BlobStore;
  transcripts: TranscriptStore;
  transcription?: TranscriptionConfig;
  heavyWork?: Semaphore;
};

export function workers({ eventStore, blobs, transcripts, transcription, heavyWork }: TranscriptionWorkerDependencies): Worker[] {
  const pipeline = transcriptionWorkers(eventStore, blobs, transcripts, transcription ?? loadTranscriptionConfig({}, (m) => new Error(m)));
  return [
    suppliedTranscriptWorker(eventStore, transcripts, pipeline.summarizer, heavyWork ?? new Semaphore(1)),
    // Even where this process recognises nothing (TRANSCRIPTION_WORKER=off): a deletion must reach what another kept.
    deletedTaskChunksWorker(blobs),
    ...pipeline.workers,
  ];
}
