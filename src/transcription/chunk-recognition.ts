import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { BlobStore } from "../blobs/port.ts";
import type { RecognizeOptions, SpeechEngine } from "./engine.ts";
import { Limiter } from "./limiter.ts";
import { ChunkResults, type RecognizedChunk } from "./chunk-results.ts";
import type { ProgressReport } from "./progress.ts";
import { writeWavSlice } from "./wav.ts";

/** A stretch of the media, in milliseconds from its start, recognised on its own. */
export type Chunk = { start: number; end: number };

/**
 * The attempt whose chunks are recognised: its results are kept under it, and its account shares the recognisers.
 * `engine`: the task's own (the default when absent); `language` and `vocabulary` go to the engine with each chunk.
 */
export type RecognitionJob = {
  taskId: number;
  attempt: number;
  userId: number;
  engine?: SpeechEngine;
} & Pick<RecognizeOptions, "language" | "vocabulary">;

/**
 * Recognises the chunks in parallel, sharing the process's recognisers fairly between accounts, and
 * keeps each chunk's words as it is done (see ChunkResults): chunks a previous delivery of this
 * attempt already recognised are read back instead.
 */
export class ChunkRecognition {
  private readonly recognisers: Limiter;
  readonly results: ChunkResults;
  /** Chunks read back from an earlier delivery instead of recognised again (for tests and the bench). */
  resumedChunks = 0;

  constructor(
    private readonly blobs: BlobStore,
    private readonly engine: SpeechEngine,
    concurrency: number,
  ) {
    this.recognisers = new Limiter(concurrency);
    this.results = new ChunkResults(blobs, engine.name);
  }

  /** Recognises every chunk, in parallel up to the limit; the first failure stops the others. */
  async recognize(job: RecognitionJob, pcm: string, dir: string, chunks: Chunk[], progress: ProgressReport, signal?: AbortSignal) {
    const stop = new AbortController();
    const combined = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
    let firstError: unknown = null;
    const tally = { chunksDone: 0, chunksRunning: 0, msDone: 0 };
    const msTotal = chunks.reduce((sum, chunk) => sum + (chunk.end - chunk.start), 0);
    let waiting: ReturnType<typeof setTimeout> | undefined;
    const report = () => {
      clearTimeout(waiting);
      progress.report({ stage: "recognising", chunks: chunks.length, ...tally, msTotal });
    };
    const done = (chunk: Chunk) => {
      tally.chunksDone++;
      tally.msDone += chunk.end - chunk.start;
      report();
    };
    // Chunks waiting for a recogniser (none started, none done) are reported after a moment: a free recogniser takes
    // the first at once, and reporting them at once would flash "waiting" before every recognition.
    waiting = setTimeout(report, 250);
    const engine = job.engine ?? this.engine;
    // Keyed by the engine too: a retry with another engine recognises again instead of reusing these words.
    const results = engine === this.engine ? this.results : new ChunkResults(this.blobs, engine.name);
    const asked = { language: job.language, vocabulary: job.vocabulary };
    await results.plan(job.taskId, job.attempt, chunks);
    const settled = await Promise.allSettled(
      chunks.map(async (chunk, i): Promise<RecognizedChunk> => {
        const kept = await results.load(job.taskId, job.attempt, chunk);
        if (kept) {
          this.resumedChunks++;
          done(chunk);
          return kept;
        }
        return this.recognisers.run(async ({ bulk }) => {
          combined.throwIfAborted();
          const wav = join(dir, `chunk-${i}.wav`);
          tally.chunksRunning++;
          report();
          try {
            await writeWavSlice(pcm, chunk.start, chunk.end, wav);
            const recognition = await engine.recognize(wav, { durationMs: chunk.end - chunk.start, signal: combined, bulk, ...asked });
            const result = { ...chunk, words: recognition.words, punctuated: recognition.punctuated };
            await results.save(job.taskId, job.attempt, result);
            tally.chunksRunning--;
            done(chunk);
            return result;
          } catch (error) {
            tally.chunksRunning--;
            if (firstError === null) {
              firstError = error;
              stop.abort(error);
            }
            throw error;
          } finally {
            await rm(wav, { force: true });
          }
        }, String(job.userId));
      }),
    );
    clearTimeout(waiting);
    if (firstError !== null) throw firstError;
    const failed = settled.find((r) => r.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return settled.map((r) => (r as PromiseFulfilledResult<RecognizedChunk>).value);
  }
}
