import { patienceOf, watchProgress, type Patience } from "./patience.ts";

/** How far each running projection has folded the log, and whether it is applying an event now. */
export type FoldProgress = ReadonlyMap<string, { readonly processed: number; readonly applying: boolean }>;

type Waiter = { position: number; names: string[] | null; resolve: () => void };

/**
 * The read-your-writes waits on a runner's projections: each resolves once the named projections (all by default)
 * have folded the log up to its position, and gives up as its patience says (patience.ts).
 */
export class PositionWaiters {
  private waiters: Waiter[] = [];

  constructor(private readonly progress: FoldProgress) {}

  /**
   * Resolves once the named projections (all by default) have processed the log up to `position`; gives up
   * (rejects) as `patience` says: by default once they stand still 5 s, or after 60 s (patience.ts).
   */
  waitFor(position: number, names: string[] | null = null, patience: Partial<Patience> | number = {}): Promise<void> {
    if (this.reached(position, names)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const progress = () => {
        const relevant = (names ?? [...this.progress.keys()]).map((name) => this.progress.get(name));
        return relevant.some((running) => running?.applying) ? null : relevant.map((running) => running?.processed ?? 0).join();
      };
      const stopWatching = watchProgress(patienceOf(patience), progress, (why) => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`projections did not reach position ${position}: ${why}`));
      });
      const waiter = { position, names, resolve: () => (stopWatching(), resolve()) };
      this.waiters.push(waiter);
    });
  }

  /** A projection moved on: the waits it completes resolve. */
  wake(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) this.reached(waiter.position, waiter.names) ? waiter.resolve() : still.push(waiter);
    this.waiters = still;
  }

  private reached(position: number, names: string[] | null): boolean {
    const relevant = names ?? [...this.progress.keys()];
    return relevant.every((name) => (this.progress.get(name)?.processed ?? 0) >= position);
  }
}
