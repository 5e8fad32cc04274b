/**
 * Batch sizes for work done a batch per turn of the event loop, each batch kept near `budgetMs` of it: the size
 * follows what the last batch cost per item, shrinking at once and growing at most twofold. A fixed size is right
 * only for the machine and load it was measured on: 50 search segments took 5 ms idle and 8-24 ms while four
 * clients sent maximal transcripts on two cores, which kept `/api/health` p99 over 30 ms.
 *
 * `took` wants the time the batch held the event loop (its synchronous part), not its round trips: a batch
 * written to a server waits without holding anything, and is not made smaller for it.
 */
export class PacedBatches {
  private size: number;

  constructor(private readonly bounds: { first: number; least: number; most: number; budgetMs: number }) {
    this.size = bounds.first;
  }

  /** How many items the next batch takes. */
  get next(): number {
    return this.size;
  }

  /** The last batch held the event loop `ms` for `items` items. */
  took(ms: number, items: number): void {
    if (items <= 0) return;
    const { least, most, budgetMs } = this.bounds;
    const fit = ms <= 0 ? most : Math.floor((budgetMs * items) / ms);
    this.size = Math.max(least, Math.min(most, fit, this.size * 2));
  }
}
