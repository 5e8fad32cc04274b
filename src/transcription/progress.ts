import type { BlobStore } from "../blobs/port.ts";
import { logger } from "../logging/logger.ts";
import { progressKey } from "./chunk-results.ts";

const log = logger("transcription");

/** The stages of one pipeline run that a person is told apart: the media read and cut, recognition, then the rest. */
export type PipelineStage = "preparing" | "recognising" | "summarising";
const pipelineStages: readonly string[] = ["preparing", "recognising", "summarising"] satisfies PipelineStage[];

/**
 * How far one attempt has come, as its pipeline last wrote it. Working state, kept beside the chunk results
 * (`work/recognition/<task>-<attempt>/progress.json`) and cleared with them when the attempt ends or the task is
 * deleted; not a fact: nothing replays it, so it is not an event, and the task's stream stays as short as it was.
 * `chunksRunning`: chunks a recogniser works on now. `msDone`, `msTotal`: media time in the chunks done, and in all.
 */
export type RecognitionProgress = {
  stage: PipelineStage;
  chunks: number;
  chunksDone: number;
  chunksRunning: number;
  msDone: number;
  msTotal: number;
};

const count = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

/** What a stored progress says, or null when there is none or it is not one (a write cut short, another version). */
export function parseProgress(text: string): RecognitionProgress | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { stage, chunks, chunksDone, chunksRunning, msDone, msTotal } = value as Record<string, unknown>;
  if (typeof stage !== "string" || !pipelineStages.includes(stage)) return null;
  if (![chunks, chunksDone, chunksRunning, msDone, msTotal].every(count)) return null;
  return { stage: stage as PipelineStage, chunks, chunksDone, chunksRunning, msDone, msTotal } as RecognitionProgress;
}

/** The progress attempt `attempt` of a task last wrote; null when it wrote none (or it is gone). */
export async function readProgress(blobs: BlobStore, taskId: number, attempt: number): Promise<RecognitionProgress | null> {
  const read = await blobs.get(progressKey(taskId, attempt));
  return read ? parseProgress(await new Response(read.body).text()) : null;
}

/**
 * The pipeline's side: where an attempt stands, written to the blob store for the status stream, which may run in
 * another process. A new stage is written at once; progress within a stage at most once per `minIntervalMs`, the
 * latest value winning, so a recording of hundreds of chunks costs a write a second, not one per chunk. One write
 * at a time. Reporting never waits and never fails the transcription: a write that fails is logged and the next
 * one tries again. `close()` stops it and waits for the write in flight, so clearing the attempt's files after it
 * leaves nothing behind.
 */
export class ProgressReport {
  private latest: RecognitionProgress | null = null;
  private written: RecognitionProgress | null = null;
  private writing: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly key: string;
  private readonly minIntervalMs: number;

  constructor(
    private readonly blobs: BlobStore,
    taskId: number,
    attempt: number,
    options: { minIntervalMs?: number } = {},
  ) {
    this.key = progressKey(taskId, attempt);
    this.minIntervalMs = options.minIntervalMs ?? 1000;
  }

  report(progress: RecognitionProgress): void {
    if (this.closed) return;
    this.latest = progress;
    this.schedule();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.timer);
    await this.writing;
  }

  private schedule(): void {
    const next = this.latest;
    if (this.closed || this.writing || next === null || next === this.written) return;
    const wait = next.stage === this.written?.stage ? this.lastWriteAt + this.minIntervalMs - performance.now() : 0;
    if (wait > 0) {
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.schedule();
      }, wait);
      return;
    }
    clearTimeout(this.timer);
    this.timer = undefined;
    this.written = next;
    this.lastWriteAt = performance.now();
    this.writing = this.blobs
      .put(this.key, new TextEncoder().encode(JSON.stringify(next)), { contentType: "application/json" })
      .then(
        () => undefined,
        (error: unknown) => log.warn({ key: this.key, err: error }, "transcription progress not written; the next report tries again"),
      )
      .finally(() => {
        this.writing = null;
        this.schedule();
      });
  }
}
