import type { Recorded } from "../core/event.ts";
import type { TaskEvent } from "./events.ts";
import { hasTranscript } from "./transcripts.ts";

/**
 * Which transcript a task's summary and mind map were made from. The transcript's version counts its changes
 * (supplied at creation, recognised, each edit: one more each), and a summary records the version it read, so a
 * summary made while an edit landed is known to be of the older text. The decider (task-state.ts) and the
 * `transcripts` read model (tasks-projection.ts) both fold this, from the same events.
 */
export type SummaryFreshness = {
  transcriptVersion: number;
  /** The version the summary and mind map were made from; null before the first (made when the task finishes). */
  summaryVersion: number | null;
};

export const noSummaryYet: SummaryFreshness = { transcriptVersion: 0, summaryVersion: null };

/** Whether the event sets the task's transcript (a new version of it). */
export function changesTranscript(event: TaskEvent): boolean {
  switch (event.type) {
    case "TranscriptEdited":
      return true;
    case "TaskCreated":
    case "TaskFinished":
      return hasTranscript(event.data);
    default:
      return false;
  }
}

export function evolveFreshness(freshness: SummaryFreshness, event: TaskEvent): SummaryFreshness {
  const transcriptVersion = freshness.transcriptVersion + (changesTranscript(event) ? 1 : 0);
  switch (event.type) {
    // The pipeline summarises the transcript it finishes with, even when the summary failed; a finish without one is a
    // supplied transcript's, summarised as it was created (version 1), so an edit made before it finished still shows.
    case "TaskFinished":
      return { transcriptVersion, summaryVersion: hasTranscript(event.data) ? transcriptVersion : Math.min(1, transcriptVersion) };
    case "SummaryRefreshed": {
      // Recorded before summaries named their version: made from the transcript of the moment, the newest one.
      const made = event.data.transcriptVersion ?? transcriptVersion;
      return { transcriptVersion, summaryVersion: Math.max(made, freshness.summaryVersion ?? made) };
    }
    default:
      return transcriptVersion === freshness.transcriptVersion ? freshness : { ...freshness, transcriptVersion };
  }
}

/** The summary and mind map shown were made from an older transcript than the current one. */
export const isSummaryOutdated = (freshness: SummaryFreshness): boolean =>
  freshness.summaryVersion !== null && freshness.summaryVersion < freshness.transcriptVersion;

/**
 * What the `transcripts` read model keeps of it: `summaryFailure` says why the last attempt failed while no later
 * summary succeeded (null otherwise), and for which version; `editedAt`, when the transcript was last edited; `refreshDue`,
 * whether the summary is outdated and its current version was not tried in vain: what the refresh job looks for.
 */
export type SummaryFields = SummaryFreshness & {
  summaryOutdated: boolean;
  summaryFailure: { reason: string; transcriptVersion: number } | null;
  editedAt: string | null;
  refreshDue: boolean;
};

const noSummaryFields: SummaryFields = { ...noSummaryYet, summaryOutdated: false, summaryFailure: null, editedAt: null, refreshDue: false };

/** The summary fields after `event`; `doc` null (or from before these fields) starts from none. */
export function evolveSummaryFields(doc: Partial<SummaryFields> | null, event: Recorded<TaskEvent>): SummaryFields {
  const before: SummaryFields = { ...noSummaryFields, ...doc };
  const freshness = evolveFreshness(before, event);
  let { summaryFailure, editedAt } = before;
  if (event.type === "TranscriptEdited") editedAt = event.time;
  if (event.type === "SummaryFailed") {
    summaryFailure = { reason: event.data.reason, transcriptVersion: event.data.transcriptVersion ?? freshness.transcriptVersion };
  }
  // A summary made since, of the failed version or a later one, ends the failure.
  const made = event.type === "SummaryRefreshed" || event.type === "TaskFinished";
  if (made && summaryFailure && (freshness.summaryVersion ?? -1) >= summaryFailure.transcriptVersion) summaryFailure = null;
  const summaryOutdated = isSummaryOutdated(freshness);
  const refreshDue = summaryOutdated && summaryFailure?.transcriptVersion !== freshness.transcriptVersion;
  return { transcriptVersion: freshness.transcriptVersion, summaryVersion: freshness.summaryVersion, summaryOutdated, summaryFailure, editedAt, refreshDue };
}

/** What readers of a transcript learn of its summary's freshness (the task detail's `summary_outdated` and `summary_failure`). */
export type TranscriptFreshness = {
  /** Null in a read model written before versions were kept (until it is rebuilt). */
  transcriptVersion: number | null;
  summaryOutdated: boolean;
  /** Why the last summary failed, while no later one succeeded. */
  summaryFailure: string | null;
};

export const freshnessOf = (doc: Partial<SummaryFields>): TranscriptFreshness => ({
  transcriptVersion: doc.transcriptVersion ?? null,
  summaryOutdated: doc.summaryOutdated ?? false,
  summaryFailure: doc.summaryFailure?.reason ?? null,
});
