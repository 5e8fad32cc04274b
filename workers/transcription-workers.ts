import type { EventStore } from "../src/eventstore/port.ts";
import type { BlobStore } from "../src/blobs/port.ts";
import type { TranscriptStore } from "../src/tasks/transcripts.ts";
import type { TranscriptionConfig } from "../src/transcription/config.ts";
import { createEngine } from "../src/transcription/engines/index.ts";
import { createSummarizer } from "../src/transcription/summary/index.ts";
import { TranscriptionPipeline } from "../src/transcription/pipeline.ts";
import type { Summarizer } from "../src/transcription/summary/summarizer.ts";
import { transcriptionWorker } from "./transcription.ts";
import type { Worker } from "./worker.ts";

/** The transcription pipeline's worker: recognition, engine chosen by configuration, unless TRANSCRIPTION_WORKER=off (charging is task-slots.ts). */
export function transcriptionWorkers(store: EventStore, blobs: BlobStore, transcripts: TranscriptStore, config: TranscriptionConfig): { workers: Worker[]; summarizer: Summarizer } {
  const summarizer = createSummarizer(config);
  const pipeline = new TranscriptionPipeline({ store, blobs, transcripts, engine: createEngine(config), summarizer, config });
  const transcription = config.worker ? [transcriptionWorker(store, pipeline, { ackWaitMs: config.ackWaitSeconds * 1000, tasksAtOnce: config.tasksPerWorker })] : [];
  return { workers: transcription, summarizer };
}
