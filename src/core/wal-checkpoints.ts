import { BackgroundThread } from "./background-thread.ts";
import { logger } from "../logging/logger.ts";

/**
 * The embedded read models' WAL checkpoints, on a thread of their own. SQLite otherwise checkpoints inside the commit
 * that grows the WAL past 1,000 pages: it copies them into the database file and syncs it, and that commit held the
 * event loop 10-20 ms, every few hundred writes while search indexed a large transcript (a scratch measurement: the
 * event loop's p99 lateness went from 15 to 8 ms with it off). Here the store's connection does not checkpoint by
 * itself (`wal_autocheckpoint = 0`, src/readmodels/embedded.ts); after a write, at most every `everyMs`, a thread
 * checkpoints on its own connection (PASSIVE: readers and writers go on meanwhile).
 *
 * A checkpoint made beside writes never quite finishes while they go on, and SQLite starts the WAL over only at the
 * first write after one that did: indexing an 80,000-segment transcript grew it to 1.1 GB. So once the thread finds
 * more than `catchUpFrames` in the WAL, it checkpoints again at once, a catch-up, while the store's writes wait
 * (`writesPaused`: they are asynchronous, so the event loop goes on). It copies only what came since the checkpoint
 * before, it finishes, and the write after it starts the WAL over. Making the connection catch up itself after a
 * commit did the same, but on the event loop: `/api/health` p99 went from 11-13 to 23-25 ms under maximal transcripts.
 * Should the thread fail, the connection checkpoints as SQLite would again (`fallBack`).
 */

export type CheckpointJob = { path: string };
/** What PRAGMA wal_checkpoint says: the WAL's frames, and how many of them are in the database file now. */
export type CheckpointResult = { walFrames: number; copiedFrames: number };

const log = logger("readmodels");
const thread = new BackgroundThread<CheckpointJob, CheckpointResult>(new URL("./wal-checkpoint-thread.ts", import.meta.url), "WAL checkpoint", {
  smol: true,
});

/**
 * `everyMs`: how often at most the thread checkpoints beside ongoing writes. `catchUpFrames`: 2,000 frames are 8 MiB of
 * 4 KiB pages. `mostPauseMs`: how long at most the writes wait for a catch-up (10-25 ms as a rule); one that takes
 * longer (a stalled disk, a thread that does not answer) lets them go on, and the WAL starts over after a later one.
 */
export type WalCheckpointOptions = { everyMs: number; catchUpFrames: number; mostPauseMs: number };
const defaultOptions: WalCheckpointOptions = { everyMs: 250, catchUpFrames: 2_000, mostPauseMs: 500 };

export class WalCheckpoints {
  private inFlight: Promise<void> | null = null;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private catchUpDue = false;
  /** While a catch-up runs: what the store's writes wait for, and what lets them go on. */
  private pause: { over: Promise<void>; end: () => void; bound: Timer } | null = null;
  private failed = false;
  private closed = false;

  private readonly options: WalCheckpointOptions;

  /**
   * `fallBack`: makes the store's connection checkpoint inside its commits again, should the thread fail.
   * `checkpointOn`: what runs a checkpoint, by default the thread.
   */
  constructor(
    private readonly path: string,
    private readonly fallBack: () => void,
    options: Partial<WalCheckpointOptions> = {},
    private readonly checkpointOn: (job: CheckpointJob) => Promise<CheckpointResult> = (job) => thread.run(job),
  ) {
    this.options = { ...defaultOptions, ...options };
  }

  /** The store committed a write: a checkpoint starts unless one is under way or began less than `everyMs` ago. */
  written(): void {
    if (this.closed || this.failed || this.inFlight !== null) return;
    if (performance.now() - this.lastStartedAt < this.options.everyMs) return;
    this.start(false);
  }

  /** While a catch-up runs, what the store's writes wait for before they begin; null otherwise (almost always). */
  writesPaused(): Promise<void> | null {
    return this.pause?.over ?? null;
  }

  /** Resolves once no checkpoint is under way. */
  async settled(): Promise<void> {
    // A checkpoint that found the WAL long is followed at once by its catch-up.
    while (this.inFlight !== null) await this.inFlight;
  }

  /** No checkpoint starts after this; resolves once the one under way (if any) is done. */
  async close(): Promise<void> {
    this.closed = true;
    await this.inFlight;
  }

  private start(catchUp: boolean): void {
    this.lastStartedAt = performance.now();
    if (catchUp) {
      const { promise, resolve } = Promise.withResolvers<void>();
      const pause = { over: promise, end: resolve, bound: setTimeout(() => this.pause === pause && this.endPause(), this.options.mostPauseMs) };
      this.pause = pause;
    }
    this.inFlight = this.checkpoint(catchUp).finally(() => {
      this.inFlight = null;
      this.endPause();
      if (this.catchUpDue && !this.closed && !this.failed) {
        this.catchUpDue = false;
        this.start(true);
      }
    });
  }

  private endPause(): void {
    if (this.pause === null) return;
    clearTimeout(this.pause.bound);
    this.pause.end();
    this.pause = null;
  }

  private async checkpoint(catchUp: boolean): Promise<void> {
    try {
      const { walFrames } = await this.checkpointOn({ path: this.path });
      // After a catch-up the WAL still counts its frames until the next write starts it over.
      this.catchUpDue = !catchUp && walFrames > this.options.catchUpFrames;
    } catch (error) {
      this.failed = true;
      log.warn({ err: error, path: this.path }, "the WAL checkpoint thread failed; the read models' connection checkpoints by itself again");
      if (!this.closed) this.fallBack();
    }
  }
}
