/**
 * What a writer under a lease shows the writes it fences (checkpoints.ts): whether it may write now, and the
 * epoch of the lease it holds (null when it holds none).
 */
export type LeaseFence = { isHeld(): boolean; epoch(): number | null };

/**
 * The epoch of a lease taken from one that had `previous`: higher than it, and no lower than the time it is taken
 * (ms). A lease made anew (its document lost or cleared, the checkpoints kept) then still outranks every epoch a
 * checkpoint was written under, instead of starting at 1 below them and being refused everywhere.
 */
export const nextEpoch = (previous: number, now: number) => Math.max(previous + 1, now);

/**
 * A write under a lease was refused because a later holder of it has written since (its epoch is higher): this
 * process lost the lease without knowing (paused past it, cut off) and must stop writing, as when it finds the
 * lease lost (runner.ts, relay.ts).
 */
export class LeaseFencedError extends Error {
  constructor(what: string, epoch: number | null, current: number | null) {
    super(`${what}: written under epoch ${current ?? "?"} of its lease since; this writer holds ${epoch === null ? "none" : `epoch ${epoch}`}`);
    this.name = "LeaseFencedError";
  }
}
