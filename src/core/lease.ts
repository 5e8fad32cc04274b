import { hostname } from "node:os";
import { DuplicateKeyError, type Document, type DocumentStore } from "../readmodels/port.ts";
import { isRunning } from "./child-process.ts";
import { logger } from "../logging/logger.ts";

const leaseLog = logger("lease");

type LeaseDocument = Document & { holder: string; expiresAt: number };

/** Who this process is, for the leases it takes: readable in the `leases` collection. */
export const processHolderId = () => `${hostname()}:${process.pid}:${crypto.randomUUID().slice(0, 8)}`;

/** Whether `holder` names a process of this host (by hostname) that no longer exists. */
function diedOnThisHost(holder: string): boolean {
  const [host, pid] = holder.split(":");
  if (host !== hostname() || !pid || !/^\d+$/.test(pid) || Number(pid) === process.pid) return false;
  return !isRunning(Number(pid));
}

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
}

/**
 * Time-bound exclusive roles across processes (the relay, the projection writer, each timed job),
 * kept in the read-model store's `leases` collection, whose single-document updates are atomic on
 * both adapters. A holder renews well before expiry; a holder that dies is replaced once its lease
 * expires.
 */
export class Leases {
  constructor(
    private readonly db: DocumentStore,
    readonly holder: string = processHolderId(),
    private readonly now: () => number = Date.now,
  ) {}

  private get leases() {
    return this.db.collection<LeaseDocument>("leases");
  }

  /** Takes or renews the lease for `ttlMs`; false while another holder's lease runs. */
  async acquire(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    const expiresAt = now + ttlMs;
    try {
      await this.leases.insertOne({ _id: name, holder: this.holder, expiresAt });
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    // Renewing our own lease, or taking one that has run out: each a single atomic compare-and-set.
    const set = { $set: { holder: this.holder, expiresAt } };
    if ((await this.leases.findOneAndUpdate({ _id: name, holder: this.holder }, set)) !== null) return true;
    if ((await this.leases.findOneAndUpdate({ _id: name, expiresAt: { $lt: now } }, set)) !== null) return true;
    // A holder on this machine whose process is gone (a crash, kill -9) need not be waited for.
    const current = await this.leases.findOne({ _id: name });
    if (!current || !diedOnThisHost(current.holder)) return false;
    return (await this.leases.findOneAndUpdate({ _id: name, holder: current.holder }, { $set: { holder: this.holder, expiresAt } })) !== null;
  }

  /** Gives the lease up at once (when stopping), so another process need not wait for it to expire. */
  async release(name: string): Promise<void> {
    await this.leases.updateOne({ _id: name, holder: this.holder }, { $set: { expiresAt: 0 } });
  }

  /**
   * Runs `work` under lease `name`, which the caller has just acquired: renews it every third of `ttlMs`
   * meanwhile and gives it up after. For a one-off holder (a CLI); a role that keeps a lease uses holdLeadership.
   * When a renewal finds another holder, or none succeeds for 2/3 of the lease, the lease is lost: `isHeld` turns
   * false (for the work's writes to check) and this rejects with LeaseLostError at once, so the CLI stops rather
   * than write beside the process that took over.
   */
  async whileHeld<R>(name: string, ttlMs: number, work: (lease: { isHeld(): boolean }) => Promise<R>): Promise<R> {
    const clock = new RenewalClock(ttlMs);
    clock.renewed(Date.now());
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
    const renew = setInterval(
      () => {
        const sentAt = Date.now();
        this.acquire(name, ttlMs).then(
          (ok) => (ok ? clock.renewed(sentAt) : loseIt("another process holds it now")),
          () => {
            if (!clock.trusted) loseIt("it could not be renewed in time");
          },
        );
      },
      Math.max(50, ttlMs / 3),
    );
    try {
      return await Promise.race([work({ isHeld }), lostLease]);
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

/** Something that runs only while its lease is held; `done` rejecting means it failed and is started again. */
export type LeasedWork = { stop(): Promise<void>; readonly done?: Promise<void> };

export type Leadership = {
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
  const intervalMs = options.intervalMs ?? Math.max(50, Math.floor(options.ttlMs / 3));
  const log = options.log ?? ((message: string) => leaseLog.info({ lease: name }, message));
  const clock = new RenewalClock(options.ttlMs);
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
    let ok = false;
    try {
      ok = await leases.acquire(name, options.ttlMs);
      // Another process holds it: whatever we had is gone.
      if (!ok) clock.lost();
    } catch (error) {
      // Unknown: the lease stays ours by our clock until 2/3 of it have passed (see held).
      leaseLog.warn({ lease: name, err: error }, `${name}: lease store unreachable`);
    }
    if (stopped) return;
    if (ok) clock.renewed(attemptAt);
    if (work && !held()) return resign(ok ? "lease renewed too late" : "lease lost");
    if (ok && !work) {
      log(`${name}: lease taken by ${leases.holder}`);
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
    const sentAt = Date.now();
    try {
      if (await leases.acquire(name, options.ttlMs)) clock.renewed(sentAt);
      else clock.lost();
    } catch (error) {
      leaseLog.warn({ lease: name, err: error }, `${name}: lease store unreachable`);
    }
  };

  const schedule = () => (busy = busy.then(tick));
  void schedule();
  const timer = setInterval(schedule, intervalMs);

  return {
    isHeld: held,
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
