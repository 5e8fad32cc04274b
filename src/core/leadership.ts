import type { LeaseFence } from "./lease-fencing.ts";
import { RenewalClock, renewEveryMs, type LeaseTaker } from "./lease-renewal.ts";
import { logger } from "../logging/logger.ts";

const leaseLog = logger("lease");

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
export function holdLeadership(leases: LeaseTaker, name: string, start: () => Promise<LeasedWork>, options: LeadershipOptions): Leadership {
  const leader = new Leader(leases, name, start, options);
  return { isHeld: () => leader.held(), epoch: () => leader.epoch, stop: () => leader.stop() };
}

/** One lease's follower-or-leader loop: a tick every interval, one at a time. */
class Leader {
  private readonly clock: RenewalClock;
  private readonly intervalMs: number;
  private readonly log: (message: string) => void;
  /** The epoch the work was started under (fencing its checkpoint writes). */
  epoch: number | null = null;
  private work: LeasedWork | null = null;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly leases: LeaseTaker,
    private readonly name: string,
    private readonly start: () => Promise<LeasedWork>,
    private readonly options: LeadershipOptions,
  ) {
    this.intervalMs = options.intervalMs ?? renewEveryMs(options.ttlMs);
    this.log = options.log ?? ((message: string) => leaseLog.info({ lease: name }, message));
    this.clock = new RenewalClock(options.ttlMs);
    this.schedule();
    this.timer = setInterval(() => this.schedule(), this.intervalMs);
  }

  /**
   * By the lease's own record, not by whether the work is running yet: work that is starting (a relay
   * catching up) asks this before its first write.
   */
  held(): boolean {
    return this.clock.trusted;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.busy;
    const hadLease = this.clock.ever;
    this.clock.lost();
    await this.resign(null);
    if (hadLease) await this.leases.release(this.name).catch(() => undefined);
  }

  private schedule(): void {
    this.busy = this.busy.then(() => this.tick());
  }

  private readonly stopFailed = (error: unknown) => leaseLog.error({ lease: this.name, err: error }, `${this.name}: stop failed`);

  private async resign(why: string | null): Promise<void> {
    const running = this.work;
    this.work = null;
    if (running) {
      if (why) this.log(`${this.name}: ${why}; stopping`);
      await running.stop().catch(this.stopFailed);
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const attemptAt = Date.now();
    let taken: number | null = null;
    try {
      taken = await this.leases.acquire(this.name, this.options.ttlMs);
      // Another process holds it: whatever we had is gone.
      if (taken === null) this.clock.lost();
    } catch (error) {
      // Unknown: the lease stays ours by our clock until 2/3 of it have passed (see held).
      leaseLog.warn({ lease: this.name, err: error }, `${this.name}: lease store unreachable`);
    }
    if (this.stopped) return;
    if (taken !== null) this.clock.renewed(attemptAt);
    if (this.work && !this.held()) return this.resign(taken !== null ? "lease renewed too late" : "lease lost");
    // Taken again under another epoch (it passed to another process and back while the store was out of reach):
    // the work starts again from its checkpoints, as after any change of hands.
    if (this.work && taken !== null && taken !== this.epoch) return this.resign("lease changed hands meanwhile");
    if (taken !== null && !this.work) await this.takeOver(taken);
  }

  /** Starts the work under the lease just taken with `epoch`; a start that fails gives the lease up. */
  private async takeOver(epoch: number): Promise<void> {
    this.epoch = epoch;
    this.log(`${this.name}: lease taken by ${this.leases.holder} (epoch ${epoch})`);
    // Starting may take long (a projection rebuilt from the whole log): the lease is renewed meanwhile, as
    // the ticks that would renew it wait for this one.
    const renewing = setInterval(() => void this.renewWhileStarting(), this.intervalMs);
    try {
      const started = await this.start();
      clearInterval(renewing);
      if (this.stopped) return void (await started.stop());
      if (!this.held()) {
        this.log(`${this.name}: lease lost while starting; stopping`);
        return void (await started.stop().catch(this.stopFailed));
      }
      this.work = started;
      started.done?.catch((error: unknown) => {
        // The work ended by itself (its store or bus failed): the next tick, still holding the lease, starts it again.
        leaseLog.error({ lease: this.name, err: error }, `${this.name}: stopped; starting again while the lease is held`);
        if (this.work === started) this.work = null;
      });
    } catch (error) {
      clearInterval(renewing);
      leaseLog.error({ lease: this.name, err: error }, `${this.name}: could not start`);
      this.clock.lost();
      await this.leases.release(this.name).catch(() => undefined);
    }
  }

  private async renewWhileStarting(): Promise<void> {
    try {
      if (!(await this.clock.renew(this.leases, this.name, this.epoch))) this.clock.lost();
    } catch (error) {
      leaseLog.warn({ lease: this.name, err: error }, `${this.name}: lease store unreachable`);
    }
  }
}
