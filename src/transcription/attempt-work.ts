import type { EventMetadata } from "../core/event.ts";
import type { Logger } from "../logging/logger.ts";
import type { Chunk } from "./chunk-recognition.ts";
import type { TaskFacts } from "./media-source.ts";
import type { ProgressReport } from "./progress.ts";
import type { PipelineTimings } from "./timings.ts";

export type Stage = keyof PipelineTimings["stages"];

/** One attempt of one task as the pipeline's stages share it: what it is about, where it works, how it reports. */
export type AttemptWork = {
  taskId: number;
  attempt: number;
  facts: TaskFacts;
  metadata: EventMetadata;
  signal?: AbortSignal;
  log: Logger;
  progress: ProgressReport;
  /** Milliseconds spent in each stage so far. */
  stages: Record<Stage, number>;
  /** Runs `work`, adding the time it takes to `stage`. */
  time: <T>(stage: Stage, work: () => Promise<T> | T) => Promise<T>;
  startedAt: number;
  /** The attempt's own temporary folder: the media, its PCM and the chunks' WAV files. */
  dir: string;
  /** The chunks the media was cut into (none before planning): their kept results are cleared when the attempt ends. */
  chunks: Chunk[];
};
