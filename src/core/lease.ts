import { DuplicateKeyError, type Document, type DocumentStore } from "../readmodels/port.ts";
import { isRunning } from "./child-process.ts";
import { nextEpoch, type LeaseFence } from "./lease-fencing.ts";
import { processHolderId, thisProcess, type HolderProcess } from "./lease-holder.ts";
import { RenewalClock, renewEveryMs } from "./lease-renewal.ts";

// The lease module's other parts, importable from here as before they had files of their own.
export { processHolderId, currentPidSpace, type HolderProcess } from "./lease-holder.ts";
export { nextEpoch, LeaseFencedError, type LeaseFence } from "./lease-fencing.ts";
export { holdLeadership, type LeasedWork, type Leadership, type LeadershipOptions } from "./leadership.ts";

type LeaseDocument = Document & {
  holder: string;
  expiresAt: number;
  /**
   * Counted up by one each time the lease changes hands, kept by renewals: what its holder's writes are fenced
   * with (checkpoints.ts). Absent on a lease taken before epochs: 0.
   */
  epoch?: number;
  /** The holder's process id, and the machine and PID namespace it means a process in (pidSpace below). */
  pid?: number;
  pidSpace?: string | null;
};

/**
 * Time-bound exclusive roles across processes (the relay, the projection writer, each timed job),
 * kept in the read-model store's `leases` collection, whose single-document updates are atomic on
 * both adapters. A holder renews well before expiry; a holder that dies is replaced once its lease
 * expires. Each lease carries an epoch, one more each time it changes hands, which its holder's checkpoint
 * writes are conditional on (checkpoints.ts): a holder that lost the lease without knowing it (paused past it)
 * cannot write a checkpoint over its successor's.
 */
export class Leases {
  /** The epoch of each lease this process took or renewed last, until it gives it up. */
  private readonly epochs = new Map<string, number>();

  constructor(
    private readonly db: DocumentStore,
    readonly holder: string = processHolderId(),
    private readonly now: () => number = Date.now,
    private readonly self: HolderProcess = thisProcess,
  ) {}

  private get leases() {
    return this.db.collection<LeaseDocument>("leases");
  }

  /**
   * Takes or renews the lease for `ttlMs`: the epoch held, or null while another holder's lease runs. Renewing
   * keeps the epoch; taking the lease (new, run out, or its holder dead) raises it (nextEpoch) in the same
   * compare-and-set, which names the epoch, holder and expiry read: of two takers racing, one wins.
   * Expiry is judged by this process's clock against the one the holder wrote (docs/internals.md#leases).
   */
  async acquire(name: string, ttlMs: number): Promise<number | null> {
    const now = this.now();
    const expiresAt = now + ttlMs;
    const mine = { holder: this.holder, expiresAt, pid: this.self.pid, pidSpace: this.self.pidSpace };
    const renewed = await this.leases.findOneAndUpdate({ _id: name, holder: this.holder }, { $set: { expiresAt } });
    if (renewed) return this.held(name, renewed.epoch ?? 0);
    const current = await this.leases.findOne({ _id: name });
    if (!current) {
      try {
        await this.leases.insertOne({ _id: name, ...mine, epoch: now });
        return this.held(name, now);
      } catch (error) {
        if (error instanceof DuplicateKeyError) return this.lost(name);
        throw error;
      }
    }
    // A holder on this machine whose process is gone (a crash, kill -9) need not be waited for.
    if (current.expiresAt >= now && !this.diedHere(current)) return this.lost(name);
    const epoch = nextEpoch(current.epoch ?? 0, now);
    const observed = { _id: name, holder: current.holder, expiresAt: current.expiresAt, epoch: current.epoch ?? null };
    return (await this.leases.findOneAndUpdate(observed, { $set: { ...mine, epoch } })) ? this.held(name, epoch) : this.lost(name);
  }

  /** The epoch of lease `name` as this process last took or renewed it; null when it does not hold it. */
  epochOf(name: string): number | null {
    return this.epochs.get(name) ?? null;
  }

  private held(name: string, epoch: number): number {
    this.epochs.set(name, epoch);
    return epoch;
  }

  private lost(name: string): null {
    this.epochs.delete(name);
    return null;
  }

  /**
   * Whether the holder was a process that is gone, which this process can tell only when both run in the same
   * boot and PID namespace (a pid means another process in another container). Otherwise: wait for expiry.
   */
  private diedHere(lease: LeaseDocument): boolean {
    const { pid, pidSpace } = lease;
    if (typeof pid !== "number" || !pidSpace || pidSpace !== this.self.pidSpace || pid === this.self.pid) return false;
    return !isRunning(pid);
  }

  /** Gives the lease up at once (when stopping), so another process need not wait for it to expire. */
  async release(name: string): Promise<void> {
    this.epochs.delete(name);
    await this.leases.updateOne({ _id: name, holder: this.holder }, { $set: { expiresAt: 0 } });
  }

  /**
   * Runs `work` under lease `name`, which the caller has just acquired: renews it every third of `ttlMs`
   * meanwhile and gives it up after. For a one-off holder (a CLI); a role that keeps a lease uses holdLeadership.
   * When a renewal finds another holder, or none succeeds for 2/3 of the lease, the lease is lost: `isHeld` turns
   * false (for the work's writes to check) and this rejects with LeaseLostError at once, so the CLI stops rather
   * than write beside the process that took over. `epoch` fences its checkpoint writes.
   */
  async whileHeld<R>(name: string, ttlMs: number, work: (lease: LeaseFence) => Promise<R>): Promise<R> {
    const clock = new RenewalClock(ttlMs);
    clock.renewed(Date.now());
    const epoch = this.epochOf(name);
    if (epoch === null) throw new LeaseLostError(name, "it was not acquired first");
    let lost: string | null = null;
    let refuse: (error: Error) => void = () => undefined;
    const lostLease = new Promise<never>((_, reject) => (refuse = reject));
    lostLease.catch(() => undefined);
    const loseIt = (why: string) => {
      if (lost !== null) return;
      lost = why;
      refuse(new LeaseLostError(name, why));
    };
    const isHeld = () => lost === null && clock.trusted;
    const renew = setInterval(() => {
      clock.renew(this, name, epoch).then(
        (renewed) => renewed || loseIt("another process holds it now"),
        () => {
          if (!clock.trusted) loseIt("it could not be renewed in time");
        },
      );
    }, renewEveryMs(ttlMs));
    try {
      return await Promise.race([work({ isHeld, epoch: () => epoch }), lostLease]);
    } finally {
      clearInterval(renew);
      if (lost === null) await this.release(name);
    }
  }

  async holderOf(name: string): Promise<string | null> {
    const lease = await this.leases.findOne({ _id: name });
    return lease && lease.expiresAt >= this.now() ? lease.holder : null;
  }
}

/** A one-off holder (a CLI) lost its lease while working: it must stop, since another process may write now. */
export class LeaseLostError extends Error {
  constructor(name: string, why: string) {
    super(`lost the ${name} lease (${why}); stopping`);
    this.name = "LeaseLostError";
  }
}
