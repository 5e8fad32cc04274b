import { BackgroundThread } from "./background-thread.ts";
import { logger } from "../logging/logger.ts";

/**
 * The embedded read models' WAL checkpoints, on a thread of their own. SQLite otherwise checkpoints inside the commit
 * that grows the WAL past 1,000 pages: it copies them into the database file and syncs it, and that commit held the
 * event loop 10-20 ms, every few hundred writes while search indexed a large transcript (a scratch measurement: the
 * event loop's p99 lateness went from 15 to 8 ms with it off). Here the store's connection never checkpoints
 * (`wal_autocheckpoint = 0`, src/readmodels/embedded.ts); after a write, at most every `everyMs`, a thread checkpoints on its own
 * connection (PASSIVE: readers and writers go on meanwhile). Should the thread fail, the connection checkpoints as
 * SQLite would again (`fallBack`), so the WAL never grows without bound.
 */

export type CheckpointJob = { path: string };
/** What PRAGMA wal_checkpoint says: the WAL's frames, and how many of them are in the database file now. */
export type CheckpointResult = { walFrames: number; copiedFrames: number };

const log = logger("readmodels");
const thread = new BackgroundThread<CheckpointJob, CheckpointResult>(new URL("./wal-checkpoint-thread.ts", import.meta.url), "WAL checkpoint", {
  smol: true,
});

export class WalCheckpoints {
  private inFlight: Promise<void> | null = null;
  private lastStartedAt = Number.NEGATIVE_INFINITY;
  private failed = false;
  private closed = false;

  constructor(
    private readonly path: string,
    private readonly fallBack: () => void,
    private readonly everyMs = 250,
  ) {}

  /** The store committed a write: a checkpoint starts unless one is under way or began less than `everyMs` ago. */
  written(): void {
    if (this.closed || this.failed || this.inFlight !== null) return;
    const now = performance.now();
    if (now - this.lastStartedAt < this.everyMs) return;
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
      await thread.run({ path: this.path });
    } catch (error) {
      this.failed = true;
      log.warn({ err: error, path: this.path }, "the WAL checkpoint thread failed; the read models' connection checkpoints by itself again");
      if (!this.closed) this.fallBack();
    }
  }
}
