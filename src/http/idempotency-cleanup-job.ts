import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { IdempotencyKeys } from "./idempotency-store.ts";

/**
 * Deletes expired Idempotency-Key records every hour, in the api role, leased so that one API process
 * does it per period. Nothing depends on its timing: an expired record is ignored on read all the same.
 */
export function startIdempotencyCleanupJob(keys: IdempotencyKeys, db: DocumentStore, everyMs = 3600_000): PeriodicJob {
  return startPeriodicJob(
    "idempotency key cleanup",
    async () => {
      await keys.sweep();
    },
    { everyMs, firstAfterMs: 60_000, across: db },
  );
}
