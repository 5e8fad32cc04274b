import type { EventStore } from "../core/event-store.ts";
import type { PeriodicJob } from "../core/periodic-job.ts";
import type { Semaphore } from "../core/semaphore.ts";
import type { Worker } from "../core/worker.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { TranscriptionConfig } from "./config.ts";
import { SummaryRefresher } from "./summary-refresh.ts";
import { startSummaryRefreshJob } from "./summary-refresh-job.ts";
import { summaryRefreshWorker } from "./summary-refresh-worker.ts";
import { createSummarizer } from "./summary/index.ts";

type RefreshWorkParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore; transcripts: TranscriptStore };
  config: { transcription: TranscriptionConfig };
  heavyWork: Semaphore;
};

const refreshers = new WeakMap<RefreshWorkParts, SummaryRefresher>();

const settleMsOf = (parts: RefreshWorkParts) => parts.config.transcription.summaryRefreshAfterEditSeconds * 1000;

/**
 * The process's summary refresher, one for its worker and its job (built from the same parts), so that the two never
 * summarise one task at once; null when SUMMARY_REFRESH_AFTER_EDIT_SECONDS=0 (summaries are then only marked out of date).
 */
function summaryRefresherOf(parts: RefreshWorkParts): SummaryRefresher | null {
  const settleMs = settleMsOf(parts);
  if (settleMs === 0) return null;
  let refresher = refreshers.get(parts);
  if (!refresher) {
    const { eventStore: store, documents: db, transcripts } = parts.adapters;
    const summarizer = createSummarizer(parts.config.transcription);
    refresher = new SummaryRefresher({ store, db, transcripts, summarizer, heavyWork: parts.heavyWork, settleMs });
    refreshers.set(parts, refresher);
  }
  return refresher;
}

/** The worker that refreshes a summary after each edit has settled; none with SUMMARY_REFRESH_AFTER_EDIT_SECONDS=0. */
export function summaryRefreshWorkers(parts: RefreshWorkParts): Worker[] {
  const refresher = summaryRefresherOf(parts);
  return refresher ? [summaryRefreshWorker(refresher, settleMsOf(parts))] : [];
}

/** The job that sweeps for the refreshes a restart lost; none with SUMMARY_REFRESH_AFTER_EDIT_SECONDS=0. */
export function summaryRefreshJobs(parts: RefreshWorkParts): PeriodicJob[] {
  const refresher = summaryRefresherOf(parts);
  return refresher ? [startSummaryRefreshJob(refresher, settleMsOf(parts), parts.adapters.documents)] : [];
}
