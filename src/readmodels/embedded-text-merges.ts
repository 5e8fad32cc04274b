import { logger } from "../logging/logger.ts";

const log = logger("readmodels");

/**
 * The embedded text indexes' merging, done in small steps of background work instead of inside the writes. FTS5 keeps
 * an index as segments that it merges as they add up; left to itself (`automerge`) it merges inside the commit of the
 * write that tipped a level over, and that commit held the event loop 20-70 ms while four clients created maximal
 * transcripts, however small the batch written. With `automerge` off (embedded-text.ts), each write to a text-indexed
 * collection makes its index due here, and the index is merged `pagesPerStep` pages at a time (about 1 ms, 3 ms at
 * p99 in a scratch measurement), each step run as background work (`inBackground`: in the service the turn share,
 * src/core/turn-share.ts, given by src/adapters.ts), until a step finds nothing to merge. Should the steps fall behind,
 * FTS5's own `crisismerge` still merges a level that reaches 16 segments.
 */

/** Pages of merge work per step: `('merge', 32)`, which merges only levels holding `usermerge` (4) segments or more. */
export const pagesPerStep = 32;

/** Runs a step of background work when the event loop has time for it. */
export type InBackground = (step: () => boolean) => Promise<boolean>;

/** Without the service's turn share (a tool, a test): a step a turn, after the turn's I/O. */
export const stepATurn: InBackground = (step) =>
  new Promise((done, fail) =>
    setImmediate(() => {
      try {
        done(step());
      } catch (error) {
        fail(error);
      }
    }),
  );

export class TextIndexMerges {
  private readonly due = new Set<string>();
  private running: Promise<void> | null = null;
  private closed = false;

  /**
   * `step`: one bounded merge of the collection's text index, and whether it found work to do; `writesPaused`: what a
   * step waits for first, as every write of the store does.
   */
  constructor(
    private readonly step: (collection: string) => boolean,
    private readonly inBackground: InBackground,
    private readonly writesPaused: () => Promise<void> | null = () => null,
  ) {}

  /** The collection's text index was written to: it is merged in the background from now on until nothing is left. */
  written(collection: string): void {
    if (this.closed) return;
    this.due.add(collection);
    this.running ??= this.mergeWhileDue();
  }

  /** The collection is gone (dropped, or renamed over another): nothing of it is merged. */
  forget(collection: string): void {
    this.due.delete(collection);
  }

  /** Whether merging is under way (a test waits for it). */
  get busy(): boolean {
    return this.running !== null;
  }

  /** Resolves once nothing is due (a test waits for it). */
  async settled(): Promise<void> {
    while (this.running !== null) await this.running;
  }

  /** No step starts after this; resolves once the one under way (if any) is done. */
  async close(): Promise<void> {
    this.closed = true;
    await this.running;
  }

  private async mergeWhileDue(): Promise<void> {
    try {
      for (const collection of this.due) {
        const paused = this.writesPaused();
        if (paused !== null) await paused;
        if (this.closed) return;
        // A pause may also have begun while the step waited for its turn: then it stays due, and waits as above.
        const worked = await this.inBackground(() => !this.closed && (this.writesPaused() !== null || this.step(collection))).catch((error: unknown) => {
          // The collection dropped meanwhile, the disk full: the next write to it makes it due again.
          log.warn({ err: error, collection }, "could not merge a text index; the next write to it tries again");
          return false;
        });
        if (this.closed) return;
        // Set iteration visits what is added meanwhile; a collection still due is visited again after the others.
        this.due.delete(collection);
        if (worked) this.due.add(collection);
      }
    } finally {
      this.running = null;
    }
  }
}
