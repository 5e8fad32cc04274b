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
import { NotFoundError } from "../core/errors.ts";
import { isScribingAttempt, TaskCommands, type TaskCommand } from "../tasks/commands.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { remainingSeconds } from "../accounts/balance.ts";
import { formatDuration } from "../notifications/decisions.ts";
import type { TranscriptionConfig } from "./config.ts";
import { RecognitionError, type SpeechEngine } from "./engine.ts";
import type { EngineName } from "../tasks/recognition-choice.ts";
import type { Summarizer } from "./summary/summarizer.ts";
import type { RecognizedChunk } from "./chunk-results.ts";
import { ChunkRecognition } from "./chunk-recognition.ts";
import { ProgressReport } from "./progress.ts";
import { transcriptionTempRoot } from "./temp-sweep.ts";
import { MediaError } from "./media.ts";
import type { TaskFacts } from "./media-source.ts";
import { qualityOf, stitch } from "./stitching.ts";
import { reportTimings, timingsForLog, type PipelineTimings } from "./timings.ts";
import { logger } from "../logging/logger.ts";
import { describeTranscript, type Described } from "./describing.ts";
import { prepareMedia } from "./media-preparation.ts";
import type { AttemptWork } from "./attempt-work.ts";

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
  /** The default engine, and every engine a task may name (the default among them); without `engines`, the default alone. */
  engine: SpeechEngine;
  engines?: ReadonlyMap<EngineName, SpeechEngine>;
  summarizer: Summarizer;
  config: TranscriptionConfig;
};

/** What recognition handed on: the media's length and each chunk's words. */
type Recognised = { pcm: string; durationMs: number; results: RecognizedChunk[] };

export class TranscriptionPipeline {
  private readonly recognition: ChunkRecognition;
  private readonly tasks: TaskCommands;
  private readonly accounts: AccountCommands;

  constructor(private readonly deps: PipelineDependencies) {
    this.recognition = new ChunkRecognition(deps.blobs, deps.engine, deps.config.recognitionConcurrency);
    this.tasks = new TaskCommands(deps.store);
    this.accounts = new AccountCommands(deps.store);
  }

  /** Chunks read back from an earlier delivery instead of recognised again (for tests and the bench). */
  get resumedChunks(): number {
    return this.recognition.resumedChunks;
  }

  /** The engine the task asked for; one this worker no longer offers (its configuration changed since) fails the task saying so. */
  private engineOf(facts: TaskFacts): SpeechEngine {
    const asked = facts.recognition.engine;
    if (asked === null || asked === this.deps.engine.name) return this.deps.engine;
    const engine = this.deps.engines?.get(asked);
    if (!engine)
      throw new RecognitionError(`The ${asked} engine this task asked for is not offered by this service any more; retry it after choosing another.`);
    return engine;
  }

  private command(work: AttemptWork, command: TaskCommand) {
    return this.tasks.run(work.taskId, command, { metadata: work.metadata });
  }

  /** Whether the task is still scribing this attempt (not deleted, failed by the sweeper or retried). */
  private async stillOurs(taskId: number, attempt: number): Promise<boolean> {
    return isScribingAttempt((await this.tasks.state(taskId)).state, attempt);
  }

  private async checkBalance(userId: number, seconds: number): Promise<void> {
    const { state: user } = await this.accounts.state(userId);
    if (user.status !== "registered") return;
    const remaining = remainingSeconds(user.ledger);
    if (seconds > remaining) {
      const shortfall = `the media is ${formatDuration(seconds)} long and the balance has ${formatDuration(remaining)} left`;
      throw new BalanceError(`Not enough transcription time: ${shortfall}. Top up or change your plan, then retry the task.`);
    }
  }

  /**
   * Runs attempt `attempt` of a scribing task. Ends with TaskFinished or TaskFailed; throws only what
   * is worth another delivery (the store or blob store failing, the signal aborting).
   */
  async run(taskId: number, facts: TaskFacts, attempt: number, metadata: EventMetadata, signal?: AbortSignal): Promise<void> {
    const work = await this.begin(taskId, facts, attempt, metadata, signal);
    let ended = false;
    try {
      const recognised = await this.transcribe(work);
      if (recognised) await this.conclude(work, recognised);
      ended = true;
    } catch (error) {
      // Deleted meanwhile: no redelivery will run it, and what this run wrote since the deletion's own sweep is its to clear.
      if (error instanceof NotFoundError) ended = true;
      throw error;
    } finally {
      await work.progress.close();
      await rm(work.dir, { recursive: true, force: true });
      // Kept chunk results serve a redelivery of this attempt: once it has ended, or was cancelled, none will come.
      if (ended || signal?.reason instanceof TaskCancelled) await this.recognition.results.clear(taskId, attempt, work.chunks).catch(() => undefined);
    }
  }

  /** The attempt's log, progress report, stage clocks and temporary folder. */
  private async begin(taskId: number, facts: TaskFacts, attempt: number, metadata: EventMetadata, signal?: AbortSignal): Promise<AttemptWork> {
    const startedAt = performance.now();
    // The worker's log context adds the worker and the correlation id to these lines.
    const log = pipelineLog.child({ taskId, attempt });
    log.info({ engine: facts.recognition.engine ?? this.deps.engine.name }, "transcription started");
    // Where this attempt stands, for the task's status stream (progress.ts): written as it goes, never waited for.
    const progress = new ProgressReport(this.deps.blobs, taskId, attempt);
    progress.report({ stage: "preparing", chunks: 0, chunksDone: 0, chunksRunning: 0, msDone: 0, msTotal: 0 });
    const stages: AttemptWork["stages"] = { fetch: 0, probe: 0, decode: 0, plan: 0, recognize: 0, segment: 0, diarize: 0, summarize: 0, finish: 0 };
    const time: AttemptWork["time"] = async (stage, work) => {
      const at = performance.now();
      try {
        return await work();
      } finally {
        stages[stage] += performance.now() - at;
      }
    };
    const root = transcriptionTempRoot(this.deps.config.tempDir);
    await mkdir(root, { recursive: true });
    // The pid in the name lets sweepTemporaryMedia tell a dead process's leftovers from live work.
    const dir = await mkdtemp(join(root, `scribe-task-${process.pid}-${taskId}-`));
    return { taskId, facts, attempt, metadata, signal, log, progress, stages, time, startedAt, dir, chunks: [] };
  }

  /**
   * Media to recognised chunks; null when the attempt ended here: failed on its media, engine or balance (the
   * media or the balance is the user's to fix; an engine that fails is the operator's), or moved on meanwhile.
   */
  private async transcribe(work: AttemptWork): Promise<Recognised | null> {
    const { log, facts } = work;
    try {
      const { pcm, durationMs } = await prepareMedia(work, this.deps.blobs, this.deps.config);
      await this.checkBalance(facts.userId, Math.max(1, Math.ceil(durationMs / 1000)));
      if (!(await this.stillOurs(work.taskId, work.attempt))) {
        log.info("the task moved on before recognition: nothing left to do");
        return null;
      }
      const { language, vocabulary } = facts.recognition;
      const job = { taskId: work.taskId, attempt: work.attempt, userId: facts.userId, engine: this.engineOf(facts), language, vocabulary };
      const results = await work.time("recognize", () => this.recognition.recognize(job, pcm, work.dir, work.chunks, work.progress, work.signal));
      log.info(
        { chunks: results.length, recognizeMs: Math.round(work.stages.recognize) },
        `recognised ${results.length} chunk${results.length === 1 ? "" : "s"}`,
      );
      return { pcm, durationMs, results };
    } catch (error) {
      if (!isTaskFailure(error) || work.signal?.aborted) throw error;
      log[error instanceof RecognitionError ? "warn" : "info"]({ reason: error.message }, "transcription failed");
      await this.command(work, { type: "FailTask", reason: error.message, attempt: work.attempt });
      return null;
    }
  }

  /** Recognised words to the finished task: stitched, segmented, told apart by speaker, summarised, recorded. */
  private async conclude(work: AttemptWork, { pcm, durationMs, results }: Recognised): Promise<void> {
    const chunks = work.chunks.length;
    work.progress.report({ stage: "summarising", chunks, chunksDone: chunks, chunksRunning: 0, msDone: durationMs, msTotal: durationMs });
    const words = stitch(results);
    if (words.length === 0) {
      work.log.info({ reason: "no speech recognised" }, "transcription failed");
      await this.command(work, { type: "FailTask", reason: "No speech was recognised in the media.", attempt: work.attempt });
      return;
    }
    const punctuated = results.some((r) => r.punctuated);
    const described = await describeTranscript(work, { words, punctuated, pcm }, this.deps.summarizer, this.deps.config.maxSpeakers);
    const seconds = Math.max(1, Math.ceil(durationMs / 1000));
    const tooLarge = await work.time("finish", () => this.finish(work, described, seconds, qualityOf(words)));
    const timings: PipelineTimings = {
      taskId: work.taskId,
      engine: this.engineOf(work.facts).name,
      mediaMs: durationMs,
      chunks,
      stages: work.stages,
      totalMs: performance.now() - work.startedAt,
    };
    reportTimings(timings);
    const { summaryFailure, diarizationFailure } = described;
    if (!tooLarge) work.log.info({ ...timingsForLog(timings), words: words.length, summaryFailure, diarizationFailure }, "transcription finished");
  }

  /** Stores the transcript and finishes the task; true when the result was too large to record (the task then fails saying so). */
  private async finish(work: AttemptWork, described: Described, seconds: number, quality: number | null): Promise<boolean> {
    const { taskId, attempt } = work;
    const { segments, summary, mindmap, diarizationFailure, summaryFailure } = described;
    const transcript = await this.deps.transcripts.save(taskId, segments);
    const finish: TaskCommand = { type: "FinishTask", transcript, duration: seconds, cost: seconds, summary, mindmap, quality, diarizationFailure, attempt };
    let tooLarge = false;
    // A summary that failed is recorded with the finish, in one append, only when the finish is this attempt's.
    const then: TaskCommand[] = summaryFailure ? [{ type: "RecordSummaryFailure", reason: summaryFailure }] : [];
    await this.tasks.runThen(taskId, finish, then, { metadata: work.metadata }).catch(async (error: unknown) => {
      // Deleted meanwhile: its deletion may have swept the task's transcripts before this one was stored.
      if (error instanceof NotFoundError) await this.deps.transcripts.discard(taskId, transcript);
      // Only a summary or mind map from an outside model can make it this large: the task fails saying so, once.
      if (!(error instanceof EventTooLargeError)) throw error;
      work.log.error({ err: error }, "transcription failed: the result is too large to record");
      tooLarge = true;
      const size = `${Math.ceil(error.bytes / 1024)} KiB, over the ${maxEventBytes / 1024} KiB limit on one change`;
      await this.command(work, { type: "FailTask", reason: `The result could not be recorded: it is ${size}.`, attempt });
    });
    return tooLarge;
  }
}
