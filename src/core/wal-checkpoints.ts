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
 * A checkpoint made beside writes never quite finishes while they go on, and SQLite starts the WAL over only after one
 * that did: indexing an 80,000-segment transcript grew it to 1.1 GB. So once the thread finds more than
 * `catchUpFrames` in the WAL, the connection checkpoints right after its next commit (`here`), copying only what came
 * since the thread's checkpoint, and the write after that starts the WAL over. Should the thread fail, the connection
 * checkpoints as SQLite would again (`inCommits`).
 */

export type CheckpointJob = { path: string };
/** What PRAGMA wal_checkpoint says: the WAL's frames, and how many of them are in the database file now. */
export type CheckpointResult = { walFrames: number; copiedFrames: number };

/** What the store's connection does when told: checkpoint now, or go back to checkpointing inside its commits. */
export type ConnectionCheckpoints = { here(): void; inCommits(): void };

const log = logger("readmodels");
const thread = new BackgroundThread<CheckpointJob, CheckpointResult>(new URL("./wal-checkpoint-thread.ts", import.meta.url), "WAL checkpoint", {
  smol: true,
});

export class WalCheckpoints {
  private inFlight: Promise<void> | null = null;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private catchUpDue = false;
  private failed = false;
  private closed = false;

  /**
   * `catchUpFrames`: 2,000 frames are 8 MiB of 4 KiB pages. With four clients creating maximal transcripts,
   * `/api/health` p99 was 23-25 ms with this bound, 20-60 ms with 16,384 frames (rarer but larger catch-ups), 34-55 ms
   * with SQLite checkpointing inside the commits, and 10.5-12.8 ms with no bound, which let the WAL grow without end.
   */
  constructor(
    private readonly path: string,
    private readonly connection: ConnectionCheckpoints,
    private readonly options: { everyMs: number; catchUpFrames: number } = { everyMs: 250, catchUpFrames: 2_000 },
  ) {}

  /**
   * The store committed a write: the connection catches up if the thread found the WAL too long; a checkpoint starts
   * unless one is under way or began less than `everyMs` ago.
   */
  written(): void {
    if (this.closed || this.failed) return;
    if (this.catchUpDue) {
      this.catchUpDue = false;
      this.connection.here();
    }
    if (this.inFlight !== null) return;
    const now = performance.now();
    if (now - this.lastStartedAt < this.options.everyMs) return;
    this.lastStartedAt = now;
    this.inFlight = this.checkpoint().finally(() => {
      this.inFlight = null;
    });
  }

  /** Resolves once no checkpoint is under way. */
  async settled(): Promise<void> {
    await this.inFlight;
  }

  /** No checkpoint starts after this; resolves once the one under way (if any) is done. */
  async close(): Promise<void> {
    this.closed = true;
    await this.inFlight;
  }

  private async checkpoint(): Promise<void> {
    try {
      const { walFrames } = await thread.run({ path: this.path });
      if (walFrames > this.options.catchUpFrames) this.catchUpDue = true;
    } catch (error) {
      this.failed = true;
      log.warn({ err: error, path: this.path }, "the WAL checkpoint thread failed; the read models' connection checkpoints by itself again");
      if (!this.closed) this.connection.inCommits();
    }
  }
}
