import { bySystem } from "../core/event.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import { logger } from "../logging/logger.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { SummaryRefresher } from "./summary-refresh.ts";

const log = logger("transcription");

/** Refreshes every summary due now (outdated by edits that have settled); returns the tasks it summarised again. */
export async function refreshSettledSummaries(refresher: SummaryRefresher): Promise<number[]> {
  const refreshed: number[] = [];
  for (const taskId of await refresher.due()) {
    try {
      const result = await refresher.refresh(taskId, bySystem("summary-refresh", `summary-refresh-${taskId}`));
      if (result !== "skipped") refreshed.push(taskId);
    } catch (error) {
      // One task's trouble (its transcript unreadable, the store down) must not hold up the others: tried again next run.
      log.warn({ taskId, err: error }, "summary refresh after edits failed; the next run tries again");
    }
  }
  return refreshed;
}

/**
 * The summaries whose refresh a restart lost (the worker's timer dies with its process; an edit's message is
 * acknowledged before the wait): swept as often as edits are let settle, at least every second and at most every
 * minute. Leased across replicas, like every sweeper; a refresh the worker makes at the same moment is recorded once.
 */
export function startSummaryRefreshJob(refresher: SummaryRefresher, settleMs: number, across: DocumentStore): PeriodicJob {
  return startPeriodicJob(
    "summary refresh",
    async () => {
      const refreshed = await refreshSettledSummaries(refresher);
      if (refreshed.length > 0) log.info({ taskIds: refreshed }, "summaries refreshed after their edits settled");
    },
    { everyMs: Math.min(60_000, Math.max(1000, settleMs)), firstAfterMs: 1000, across },
  );
}
