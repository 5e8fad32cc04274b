import { readFileSync, readlinkSync } from "node:fs";
import { hostname, uptime } from "node:os";
import { DuplicateKeyError, type Document, type DocumentStore } from "../readmodels/port.ts";
import { isRunning } from "./child-process.ts";
import { logger } from "../logging/logger.ts";

const leaseLog = logger("lease");

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

/** Who this process is, for the leases it takes: readable in the `leases` collection, and unique by its random part. */
export const processHolderId = () => `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

/** The process behind a holder: its pid, and where that pid means this process (null: unknown). */
export type HolderProcess = { pid: number; pidSpace: string | null };

/**
 * Where a pid names one process: this boot of this machine (the kernel's boot id) and this PID namespace (its
 * inode, as /proc/self/ns/pid links to it). Two containers on one host, each its own PID namespace, may both have
 * pid 7 under the same host name; a process may only judge a holder's pid dead when the holder ran in the same
 * space. Outside Linux there are no PID namespaces: the host name and the minute it booted. Null when unknown.
 */
export function currentPidSpace(): string | null {
  try {
    if (process.platform === "linux") {
      const boot = readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
      const namespace = readlinkSync("/proc/self/ns/pid");
      return boot && namespace ? `${boot}/${namespace}` : null;
    }
    return `${hostname()}/booted:${Math.round((Date.now() / 1000 - uptime()) / 60)}`;
  } catch {
    return null;
  }
}

const thisProcess: HolderProcess = { pid: process.pid, pidSpace: currentPidSpace() };

/**
 * What a writer under a lease shows the writes it fences (checkpoints.ts): whether it may write now, and the
 * epoch of the lease it holds (null when it holds none).
 */
export type LeaseFence = { isHeld(): boolean; epoch(): number | null };

/**
 * When this process last renewed a lease, counted from when the renewal was sent (a late answer is not a fresh
 * lease), and whether that is recent enough to trust: for two thirds of the lease, so a holder that was paused or
 * cut off stops before the lease can have passed to another process.
 */
class RenewalClock {
  private renewedAt = 0;
  constructor(private readonly ttlMs: number) {}

  renewed(sentAt: number): void {
    this.renewedAt = Math.max(this.renewedAt, sentAt);
  }

  lost(): void {
    this.renewedAt = 0;
  }

  /** Whether the lease was ever renewed since it was last lost. */
  get ever(): boolean {
    return this.renewedAt > 0;
  }

  get trusted(): boolean {
    return this.renewedAt > 0 && Date.now() - this.renewedAt < (this.ttlMs * 2) / 3;
  }

  /**
   * Renews lease `name` for the epoch held, counting from when the renewal was sent: false when another process
   * holds it now (or under another epoch); rejects when the store does not answer, which leaves the clock as it was.
   */
  async renew(leases: Leases, name: string, epoch: number | null): Promise<boolean> {
    const sentAt = Date.now();
    if ((await leases.acquire(name, this.ttlMs)) !== epoch) return false;
    this.renewed(sentAt);
    return true;
  }
}

/** How often a holder renews: three times a lease, so one late renewal still leaves it trusted. */
const renewEveryMs = (ttlMs: number) => Math.max(50, Math.floor(ttlMs / 3));

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

/** Something that runs only while its lease is held; `done` rejecting means it failed and is started again. */
export type LeasedWork = { stop(): Promise<void>; readonly done?: Promise<void> };

export type Leadership = LeaseFence & {
  /** True while this process holds the lease and has renewed it recently enough to trust that. */
  isHeld(): boolean;
  /** Stops the work (when running) and gives the lease up. */
  stop(): Promise<void>;
};

export type LeadershipOptions = {
  ttlMs: number;
  /** How often a follower tries to take the lease over, and a leader renews it (default ttl / 3). */
  intervalMs?: number;
  log?: (message: string) => void;
};

/**
 * Runs `start` while this process holds lease `name`, and only then: a follower keeps trying to take
 * over, a leader renews. A leader that cannot renew in time (paused, cut off from the store, or
 * replaced) stops its work before its lease can have passed to another process, by its own clock:
 * `isHeld` turns false at 2/3 of the lease, so checks made just before a write stay on the safe side.
 */
export function holdLeadership(leases: Leases, name: string, start: () => Promise<LeasedWork>, options: LeadershipOptions): Leadership {
  const intervalMs = options.intervalMs ?? renewEveryMs(options.ttlMs);
  const log = options.log ?? ((message: string) => leaseLog.info({ lease: name }, message));
  const clock = new RenewalClock(options.ttlMs);
  /** The epoch the work was started under (fencing its checkpoint writes). */
  let epoch: number | null = null;
  let work: LeasedWork | null = null;
  let stopped = false;
  let busy: Promise<void> = Promise.resolve();
  // By the lease's own record, not by whether the work is running yet: work that is starting (a relay
  // catching up) asks this before its first write.
  const held = () => clock.trusted;

  const resign = async (why: string | null) => {
    const running = work;
    work = null;
    if (running) {
      if (why) log(`${name}: ${why}; stopping`);
      await running.stop().catch((error: unknown) => leaseLog.error({ lease: name, err: error }, `${name}: stop failed`));
    }
  };

  const tick = async () => {
    if (stopped) return;
    const attemptAt = Date.now();
    let taken: number | null = null;
    try {
      taken = await leases.acquire(name, options.ttlMs);
      // Another process holds it: whatever we had is gone.
      if (taken === null) clock.lost();
    } catch (error) {
      // Unknown: the lease stays ours by our clock until 2/3 of it have passed (see held).
      leaseLog.warn({ lease: name, err: error }, `${name}: lease store unreachable`);
    }
    if (stopped) return;
    if (taken !== null) clock.renewed(attemptAt);
    if (work && !held()) return resign(taken !== null ? "lease renewed too late" : "lease lost");
    // Taken again under another epoch (it passed to another process and back while the store was out of reach):
    // the work starts again from its checkpoints, as after any change of hands.
    if (work && taken !== null && taken !== epoch) return resign("lease changed hands meanwhile");
    if (taken !== null && !work) {
      epoch = taken;
      log(`${name}: lease taken by ${leases.holder} (epoch ${taken})`);
      // Starting may take long (a projection rebuilt from the whole log): the lease is renewed meanwhile, as
      // the ticks that would renew it wait for this one.
      const renewing = setInterval(() => void renewWhileStarting(), intervalMs);
      try {
        const started = await start();
        clearInterval(renewing);
        if (stopped) return void (await started.stop());
        if (!held()) {
          log(`${name}: lease lost while starting; stopping`);
          return void (await started.stop().catch((error: unknown) => leaseLog.error({ lease: name, err: error }, `${name}: stop failed`)));
        }
        work = started;
        started.done?.catch((error: unknown) => {
          // The work ended by itself (its store or bus failed): the next tick, still holding the lease, starts it again.
          leaseLog.error({ lease: name, err: error }, `${name}: stopped; starting again while the lease is held`);
          if (work === started) work = null;
        });
      } catch (error) {
        clearInterval(renewing);
        leaseLog.error({ lease: name, err: error }, `${name}: could not start`);
        clock.lost();
        await leases.release(name).catch(() => undefined);
      }
    }
  };

  const renewWhileStarting = async () => {
    try {
      if (!(await clock.renew(leases, name, epoch))) clock.lost();
    } catch (error) {
      leaseLog.warn({ lease: name, err: error }, `${name}: lease store unreachable`);
    }
  };

  const schedule = () => (busy = busy.then(tick));
  void schedule();
  const timer = setInterval(schedule, intervalMs);

  return {
    isHeld: held,
    epoch: () => epoch,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await busy;
      const hadLease = clock.ever;
      clock.lost();
      await resign(null);
      if (hadLease) await leases.release(name).catch(() => undefined);
    },
  };
}
