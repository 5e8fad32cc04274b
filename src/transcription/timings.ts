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
