import type { DocumentStore } from "../readmodels/port.ts";
import { Leases } from "./lease.ts";
import { logger } from "../logging/logger.ts";

const log = logger("jobs");

export type PeriodicJob = { stop(): void };

export type PeriodicJobOptions = {
  everyMs: number;
  /** A first run this soon after start, besides the regular ones. */
  firstAfterMs?: number;
  /**
   * Where replicas agree on who runs it: each run first takes the lease `job:<name>` for 90 % of the
   * period, so of all the processes running this job, one does per period (the work stays idempotent
   * all the same: a lease is a matter of clocks).
   */
  across?: DocumentStore;
};

/**
 * Runs `work` every `everyMs` (and once after `firstAfterMs`, when given), never two runs at once,
 * logging a failure instead of stopping: the next run tries again.
 */
export function startPeriodicJob(name: string, work: () => Promise<void>, options: PeriodicJobOptions): PeriodicJob {
  const leases = options.across ? new Leases(options.across) : null;
  const leaseMs = Math.max(1, Math.floor(options.everyMs * 0.9));
  let running = false;
  const run = async () => {
    if (running) return;
    running = true;
    try {
      if (leases && (await leases.acquire(`job:${name}`, leaseMs)) === null) return;
      await work();
    } catch (error) {
      log.error({ job: name, err: error }, "periodic job failed; the next run tries again");
    } finally {
      running = false;
    }
  };
  const first = options.firstAfterMs === undefined ? null : setTimeout(run, options.firstAfterMs);
  const timer = setInterval(run, options.everyMs);
  return {
    stop() {
      if (first) clearTimeout(first);
      clearInterval(timer);
    },
  };
}
