import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { TranscriptionConfig } from "./config.ts";
import { createEngines } from "./engines/index.ts";
import { createSummarizer } from "./summary/index.ts";
import { TranscriptionPipeline } from "./pipeline.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import { transcriptionWorker } from "./transcription-worker.ts";
import type { Worker } from "../core/worker.ts";

/** The transcription pipeline's worker: recognition, engine chosen by configuration, unless TRANSCRIPTION_WORKER=off (charging is task-slots.ts). */
export function transcriptionWorkers(
  store: EventStore,
  blobs: BlobStore,
  transcripts: TranscriptStore,
  config: TranscriptionConfig,
): { workers: Worker[]; summarizer: Summarizer } {
  const summarizer = createSummarizer(config);
  const engines = createEngines(config);
  const pipeline = new TranscriptionPipeline({ store, blobs, transcripts, engine: engines.get(config.engine)!, engines, summarizer, config });
  const transcription = config.worker
    ? [transcriptionWorker(store, pipeline, { ackWaitMs: config.ackWaitSeconds * 1000, tasksAtOnce: config.tasksPerWorker })]
    : [];
  return { workers: transcription, summarizer };
}
