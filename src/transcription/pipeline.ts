/**
 * One attempt of one task, from media to TaskFinished (or TaskFailed with a reason): fetch the media,
 * probe it, decode it to 16 kHz mono, cut it at pauses into chunks recognised in parallel (at most
 * RECOGNITION_CONCURRENCY at once in this process, across tasks), stitch the words back on the media's
 * clock, make sentence-like segments, tell speakers apart when asked, summarise, finish.
 * Summary, mind map and diarization may fail without failing the task.
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import { EventTooLargeError, maxEventBytes } from "../eventstore/event-size.ts";
import type { EventMetadata } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { NotFoundError } from "../core/errors.ts";
import { loadState } from "../core/state-cache.ts";
import { isScribingAttempt, taskDecider, type TaskCommand } from "../tasks/decider.ts";
import { taskStream } from "../tasks/events.ts";
import { userDecider } from "../accounts/decider.ts";
import { userStream } from "../accounts/events.ts";
import { remainingSeconds } from "../accounts/balance.ts";
import { formatDuration } from "../notifications/decisions.ts";
import type { TranscriptionConfig } from "./config.ts";
import { RecognitionError, type SpeechEngine } from "./engine.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import { Limiter } from "./limiter.ts";
import { ChunkResults, type RecognizedChunk } from "./chunk-results.ts";
import { ProgressReport } from "./progress.ts";
import { transcriptionTempRoot } from "./temp-sweep.ts";
import { MediaError, assertRecognisable, decodeToPcm, measureLevels, probe } from "./media.ts";
import { fetchMedia, mediaSize, prefixProbeBytes, type TaskFacts } from "./media-source.ts";
import { findSilences, planChunks } from "./chunking.ts";
import { qualityOf, stitch } from "./stitching.ts";
import { segmentWords } from "./segmenting.ts";
import { diarize } from "./diarization.ts";
import { readSamples, writeWavSlice } from "./wav.ts";
import { reportTimings, timingsForLog, type PipelineTimings } from "./timings.ts";
import { logger } from "../logging/logger.ts";

const pipelineLog = logger("transcription");

/** Why a transcription is aborted when its task was deleted, failed or retried meanwhile: its work is dropped. */
export class TaskCancelled extends Error {
  constructor(taskId: number) {
    super(`task ${taskId} was deleted or moved on; its transcription is cancelled`);
    this.name = "TaskCancelled";
  }
}

/** The balance cannot pay for the media: the task fails saying so, and can be retried after a top-up. */
export class BalanceError extends Error {}

/** Problems with the task's media, engine or balance: the task fails with the message as its reason. */
export const isTaskFailure = (error: unknown): error is Error =>
  error instanceof MediaError || error instanceof RecognitionError || error instanceof BalanceError;

export type PipelineDependencies = {
  store: EventStore;
  blobs: BlobStore;
  transcripts: TranscriptStore;
  engine: SpeechEngine;
  summarizer: Summarizer;
  config: TranscriptionConfig;
};

type Stage = keyof PipelineTimings["stages"];

export class TranscriptionPipeline {
  private readonly recognition: Limiter;
  private readonly chunkResults: ChunkResults;
  /** Chunks read back from an earlier delivery instead of recognised again (for tests and the bench). */
  resumedChunks = 0;

  constructor(private readonly deps: PipelineDependencies) {
    this.recognition = new Limiter(deps.config.recognitionConcurrency);
    this.chunkResults = new ChunkResults(deps.blobs, deps.engine.name);
  }

  private command(taskId: number, command: TaskCommand, metadata: EventMetadata) {
    return handle(this.deps.store, taskStream(taskId), taskDecider, (state) => taskDecider.decide(command, state), { metadata });
  }

  /** Whether the task is still scribing this attempt (not deleted, failed by the sweeper or retried). */
  private async stillOurs(taskId: number, attempt: number): Promise<boolean> {
    return isScribingAttempt((await loadState(this.deps.store, taskStream(taskId), taskDecider)).state, attempt);
  }

  private async checkBalance(userId: number, seconds: number): Promise<void> {
    const { state: user } = await loadState(this.deps.store, userStream(userId), userDecider);
    if (user.status !== "registered") return;
    const remaining = remainingSeconds(user.ledger);
    if (seconds > remaining) {
      throw new BalanceError(
        `Not enough transcription time: the media is ${formatDuration(seconds)} long and the balance has ${formatDuration(remaining)} left. Top up or change your plan, then retry the task.`,
      );
    }
  }

  /**
   * Runs attempt `attempt` of a scribing task. Ends with TaskFinished or TaskFailed; throws only what
   * is worth another delivery (the store or blob store failing, the signal aborting).
   */
  async run(taskId: number, facts: TaskFacts, attempt: number, metadata: EventMetadata, signal?: AbortSignal): Promise<void> {
    const { config } = this.deps;
    const startedAt = performance.now();
    // The worker's log context adds the worker and the correlation id to these lines.
    const log = pipelineLog.child({ taskId, attempt });
    log.info({ engine: this.deps.engine.name }, "transcription started");
    // Where this attempt stands, for the task's status stream (progress.ts): written as it goes, never waited for.
    const progress = new ProgressReport(this.deps.blobs, taskId, attempt);
    progress.report({ stage: "preparing", chunks: 0, chunksDone: 0, chunksRunning: 0, msDone: 0, msTotal: 0 });
    const stages: Record<Stage, number> = { fetch: 0, probe: 0, decode: 0, plan: 0, recognize: 0, segment: 0, diarize: 0, summarize: 0, finish: 0 };
    const time = async <T>(stage: Stage, work: () => Promise<T> | T): Promise<T> => {
      const at = performance.now();
      try {
        return await work();
      } finally {
        stages[stage] += performance.now() - at;
      }
    };
    const root = transcriptionTempRoot(config.tempDir);
    await mkdir(root, { recursive: true });
    // The pid in the name lets sweepTemporaryMedia tell a dead process's leftovers from live work.
    const dir = await mkdtemp(join(root, `scribe-task-${process.pid}-${taskId}-`));
    let chunks: { start: number; end: number }[] = [];
    let ended = false;
    try {
      const media = join(dir, "media");
      const pcm = join(dir, "audio.pcm");
      let durationMs: number;
      let results: RecognizedChunk[];
      try {
        const size = await time("fetch", () => mediaSize(this.deps.blobs, facts.mediaKey));
        if (size > prefixProbeBytes) {
          // A container is recognised by its first bytes: a large file that is not media is refused before it is copied.
          await time("fetch", () => fetchMedia(this.deps.blobs, facts.mediaKey!, media, signal, prefixProbeBytes));
          await time("probe", () => assertRecognisable(media, signal));
        }
        await time("fetch", () => fetchMedia(this.deps.blobs, facts.mediaKey!, media, signal));
        const info = await time("probe", () => probe(media, signal));
        if (!info.hasAudio && /^image2|_pipe$/.test(info.format)) throw new MediaError("The file is a picture, not audio or video.");
        if (!info.hasAudio)
          throw new MediaError(info.hasVideo ? "The video has no audio track: there is nothing to transcribe." : "The file has no audio to transcribe.");
        const tooLong = new MediaError(`The media is longer than ${formatDuration(config.maxMediaSeconds)}, the most that is transcribed (MAX_MEDIA_SECONDS).`);
        if (info.durationSeconds !== null && info.durationSeconds > config.maxMediaSeconds + 1) throw tooLong;
        durationMs = await time("decode", () => decodeToPcm(media, pcm, config.maxMediaSeconds, signal, info.durationSeconds));
        if (durationMs > config.maxMediaSeconds * 1000) throw tooLong;
        await rm(media, { force: true }); // only the PCM is needed from here on
        chunks = await time("plan", async () => {
          const levels = await measureLevels(pcm);
          const analysis = findSilences(levels);
          if (analysis.silent) return [];
          const targetMs = config.chunkSeconds * 1000;
          return planChunks(durationMs, analysis.silences, levels, { targetMs, maxMs: 2 * targetMs });
        });
        if (chunks.length === 0) throw new MediaError("The media is silent: there is no speech to transcribe.");
        log.info({ mediaSeconds: durationMs / 1000, chunks: chunks.length }, "media decoded and cut into chunks");
        await this.checkBalance(facts.userId, Math.max(1, Math.ceil(durationMs / 1000)));
        if (!(await this.stillOurs(taskId, attempt))) {
          log.info("the task moved on before recognition: nothing left to do");
          ended = true;
          return;
        }
        results = await time("recognize", () => this.recognize({ taskId, attempt, userId: facts.userId }, pcm, dir, chunks, progress, signal));
        log.info({ chunks: results.length, recognizeMs: Math.round(stages.recognize) }, `recognised ${results.length} chunk${results.length === 1 ? "" : "s"}`);
      } catch (error) {
        if (!isTaskFailure(error) || signal?.aborted) throw error;
        // The media or the balance is the user's to fix; an engine that fails is the operator's.
        log[error instanceof RecognitionError ? "warn" : "info"]({ reason: error.message }, "transcription failed");
        await this.command(taskId, { type: "FailTask", reason: error.message, attempt }, metadata);
        ended = true;
        return;
      }

      progress.report({ stage: "summarising", chunks: chunks.length, chunksDone: chunks.length, chunksRunning: 0, msDone: durationMs, msTotal: durationMs });
      const words = stitch(results);
      if (words.length === 0) {
        log.info({ reason: "no speech recognised" }, "transcription failed");
        await this.command(taskId, { type: "FailTask", reason: "No speech was recognised in the media.", attempt }, metadata);
        ended = true;
        return;
      }
      let segments = await time("segment", () =>
        segmentWords(
          words,
          results.some((r) => r.punctuated),
        ),
      );
      let diarizationFailure: string | null = null;
      if (facts.speakerDiarization) {
        await time("diarize", async () => {
          try {
            segments = await diarize(segments, (start, end) => readSamples(pcm, start, end), { maxSpeakers: config.maxSpeakers });
          } catch (error) {
            diarizationFailure = `Speakers could not be told apart: ${(error as Error).message}`;
          }
        });
      }
      let summary: string | null = null;
      let mindmap: string | null = null;
      let summaryFailure: string | null = null;
      await time("summarize", async () => {
        try {
          ({ summary, mindmap } = await this.deps.summarizer.summarize({ title: facts.name, segments }, signal));
        } catch (error) {
          if (signal?.aborted) throw error;
          summaryFailure = `Summary and mind map could not be made: ${(error as Error).message}`;
        }
      });
      const seconds = Math.max(1, Math.ceil(durationMs / 1000));
      let tooLarge = false;
      await time("finish", async () => {
        const transcript = await this.deps.transcripts.save(taskId, segments);
        const finish: TaskCommand = {
          type: "FinishTask",
          transcript,
          duration: seconds,
          cost: seconds,
          summary,
          mindmap,
          quality: qualityOf(words),
          diarizationFailure,
          attempt,
        };
        const finished = await this.command(taskId, finish, metadata).catch(async (error: unknown) => {
          // Deleted meanwhile: its deletion may have swept the task's transcripts before this one was stored.
          if (error instanceof NotFoundError) await this.deps.transcripts.discard(taskId, transcript);
          // Only a summary or mind map from an outside model can make it this large: the task fails saying so, once.
          if (!(error instanceof EventTooLargeError)) throw error;
          log.error({ err: error }, "transcription failed: the result is too large to record");
          tooLarge = true;
          await this.command(
            taskId,
            {
              type: "FailTask",
              reason: `The result could not be recorded: it is ${Math.ceil(error.bytes / 1024)} KiB, over the ${maxEventBytes / 1024} KiB limit on one change.`,
              attempt,
            },
            metadata,
          );
          return { events: [] };
        });
        if (finished.events.length > 0 && summaryFailure) await this.command(taskId, { type: "RecordSummaryFailure", reason: summaryFailure }, metadata);
      });
      const timings: PipelineTimings = {
        taskId,
        engine: this.deps.engine.name,
        mediaMs: durationMs,
        chunks: chunks.length,
        stages,
        totalMs: performance.now() - startedAt,
      };
      reportTimings(timings);
      if (!tooLarge) log.info({ ...timingsForLog(timings), words: words.length, summaryFailure, diarizationFailure }, "transcription finished");
      ended = true;
    } catch (error) {
      // Deleted meanwhile: no redelivery will run it, and what this run wrote since the deletion's own sweep is its to clear.
      if (error instanceof NotFoundError) ended = true;
      throw error;
    } finally {
      await progress.close();
      await rm(dir, { recursive: true, force: true });
      // Kept chunk results serve a redelivery of this attempt: once it has ended, or was cancelled, none will come.
      if (ended || signal?.reason instanceof TaskCancelled) await this.chunkResults.clear(taskId, attempt, chunks).catch(() => undefined);
    }
  }

  /** Recognises every chunk, in parallel up to the limit; the first failure stops the others. */
  /**
   * Recognises the chunks in parallel, sharing the process's recognisers fairly between accounts, and
   * keeps each chunk's words as it is done (see ChunkResults): chunks a previous delivery of this
   * attempt already recognised are read back instead.
   */
  private async recognize(
    job: { taskId: number; attempt: number; userId: number },
    pcm: string,
    dir: string,
    chunks: { start: number; end: number }[],
    progress: ProgressReport,
    signal?: AbortSignal,
  ) {
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
    const done = (chunk: { start: number; end: number }) => {
      tally.chunksDone++;
      tally.msDone += chunk.end - chunk.start;
      report();
    };
    // Chunks waiting for a recogniser (none started, none done) are reported after a moment: a free recogniser takes
    // the first at once, and reporting them at once would flash "waiting" before every recognition.
    waiting = setTimeout(report, 250);
    await this.chunkResults.plan(job.taskId, job.attempt, chunks);
    const settled = await Promise.allSettled(
      chunks.map(async (chunk, i): Promise<RecognizedChunk> => {
        const kept = await this.chunkResults.load(job.taskId, job.attempt, chunk);
        if (kept) {
          this.resumedChunks++;
          done(chunk);
          return kept;
        }
        return this.recognition.run(async () => {
          combined.throwIfAborted();
          const wav = join(dir, `chunk-${i}.wav`);
          tally.chunksRunning++;
          report();
          try {
            await writeWavSlice(pcm, chunk.start, chunk.end, wav);
            const recognition = await this.deps.engine.recognize(wav, { durationMs: chunk.end - chunk.start, signal: combined });
            const result = { ...chunk, words: recognition.words, punctuated: recognition.punctuated };
            await this.chunkResults.save(job.taskId, job.attempt, result);
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
