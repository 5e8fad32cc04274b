/**
 * Where a transcription's time went, for the benchmarks: each finished pipeline run reports its stages
 * (milliseconds of wall time) to the observers registered here, in the same process.
 */
export type PipelineTimings = {
  taskId: number;
  engine: string;
  mediaMs: number;
  chunks: number;
  stages: Record<"fetch" | "probe" | "decode" | "plan" | "recognize" | "segment" | "diarize" | "summarize" | "finish", number>;
  totalMs: number;
};

export const pipelineObservers = new Set<(timings: PipelineTimings) => void>();

export function reportTimings(timings: PipelineTimings): void {
  for (const observer of pipelineObservers) observer(timings);
}

/** A run's timings as its "transcription finished" log line shows them: whole milliseconds, and the realtime factor (wall time over media time). */
export function timingsForLog(timings: PipelineTimings) {
  return {
    engine: timings.engine,
    mediaSeconds: timings.mediaMs / 1000,
    totalMs: Math.round(timings.totalMs),
    realtimeFactor: Math.round((timings.totalMs / Math.max(1, timings.mediaMs)) * 1000) / 1000,
    chunks: timings.chunks,
    stagesMs: Object.fromEntries(Object.entries(timings.stages).map(([stage, ms]) => [stage, Math.round(ms)])),
  };
}
