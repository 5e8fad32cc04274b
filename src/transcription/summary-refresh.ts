import type { EventMetadata } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { NotFoundError } from "../core/errors.ts";
import type { Semaphore } from "../core/semaphore.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { TaskCommands, type TaskCommandResult } from "../tasks/commands.ts";
import type { Segment } from "../tasks/segments.ts";
import type { TranscriptDocument } from "../tasks/tasks-projection.ts";
import { largeTranscriptBytes, type TranscriptStore } from "../tasks/transcripts.ts";
import type { Summarizer, SummaryResult } from "./summary/summarizer.ts";

/**
 * A transcript to summarise: its task's name (the mind map's title), its segments, and which version of it they are
 * (null when the read model does not know yet: then the task's current one).
 */
export type SummarySource = { taskId: number; title: string; segments: Segment[]; transcriptVersion: number | null };

export type SummaryOutcome = { made: SummaryResult; failure: null; result: TaskCommandResult } | { made: null; failure: string; result: TaskCommandResult };

/**
 * Makes the summary and mind map of `source` and records them (SummaryRefreshed) with the version they were made
 * from, or records why they could not be (SummaryFailed). The version is what keeps a refresh from racing an edit:
 * an edit that lands meanwhile makes a newer version, and the task stays marked out of date (summary-freshness.ts).
 * `automatic`: the refresh after edits, which records nothing for a version already summarised.
 */
export async function summariseAndRecord(
  commands: TaskCommands,
  summarizer: Summarizer,
  source: SummarySource,
  options: { metadata: EventMetadata; automatic?: boolean },
): Promise<SummaryOutcome> {
  const { taskId, title, segments } = source;
  const transcriptVersion = source.transcriptVersion ?? undefined;
  const context = { metadata: options.metadata };
  let made: SummaryResult;
  try {
    made = await summarizer.summarize({ title, segments });
  } catch (error) {
    const failure = `Summary and mind map could not be made: ${(error as Error).message}`;
    return { made: null, failure, result: await commands.run(taskId, { type: "RecordSummaryFailure", reason: failure, transcriptVersion }, context) };
  }
  const record = { type: "RecordSummary", ...made, transcriptVersion, automatic: options.automatic } as const;
  return { made, failure: null, result: await commands.run(taskId, record, context) };
}

export type SummaryRefreshParts = {
  store: EventStore;
  db: DocumentStore;
  transcripts: TranscriptStore;
  summarizer: Summarizer;
  /** Summarising a large transcript is heavy work, one at a time with the API's large bodies (HEAVY_WORK_AT_ONCE). */
  heavyWork: Semaphore;
  /** How long after the last edit the summary is made again (SUMMARY_REFRESH_AFTER_EDIT_SECONDS). */
  settleMs: number;
  now?: () => Date;
};

/** What one refresh came to: made, failed (recorded), or nothing to do (not outdated, edits still coming, gone). */
export type RefreshResult = "refreshed" | "failed" | "skipped";

/**
 * The summary refresh after edits: a task whose summary an edit outdated is summarised again once no edit came for
 * `settleMs`. The `transcripts` read model says which are due (refreshDue, editedAt); the task's stream decides
 * whether the summary is recorded. Both the worker that reacts to each edit and the job that sweeps for what a
 * restart lost call `refresh`, which checks again that the task is due, so either may come first, or both.
 */
export class SummaryRefresher {
  private readonly commands: TaskCommands;
  private readonly busy = new Set<number>();

  constructor(private readonly parts: SummaryRefreshParts) {
    this.commands = new TaskCommands(parts.store);
  }

  private get transcriptDocs() {
    return this.parts.db.collection<TranscriptDocument>("transcripts");
  }

  private now(): Date {
    return this.parts.now?.() ?? new Date();
  }

  /** The tasks whose summary is due: outdated by edits, the last of them at least `settleMs` ago, not tried in vain at this version. */
  async due(limit = 100): Promise<number[]> {
    const settledBefore = new Date(this.now().getTime() - this.parts.settleMs).toISOString();
    const docs = await this.transcriptDocs.find({ refreshDue: true, editedAt: { $lte: settledBefore } }, { sort: { editedAt: 1 }, limit });
    return docs.map((doc) => Number(doc._id));
  }

  /** Summarises the task again if it is due now (see `due`); one refresh of a task at a time in this process. */
  async refresh(taskId: number, metadata: EventMetadata): Promise<RefreshResult> {
    if (this.busy.has(taskId)) return "skipped";
    this.busy.add(taskId);
    try {
      return await this.refreshDue(taskId, metadata);
    } catch (error) {
      if (error instanceof NotFoundError) return "skipped"; // deleted meanwhile
      throw error;
    } finally {
      this.busy.delete(taskId);
    }
  }

  private async refreshDue(taskId: number, metadata: EventMetadata): Promise<RefreshResult> {
    const doc = await this.transcriptDocs.findOne({ _id: String(taskId) });
    if (!doc?.refreshDue || !doc.editedAt || Date.parse(doc.editedAt) + this.parts.settleMs > this.now().getTime()) return "skipped";
    const { state } = await this.commands.state(taskId);
    if (state.status !== "live") return "skipped";
    const large = (doc.transcript?.bytes ?? 0) > largeTranscriptBytes;
    const release = large ? await this.parts.heavyWork.acquire() : () => {};
    try {
      const segments = (await this.parts.transcripts.segmentsOf(doc)) ?? [];
      const source = { taskId, title: state.name, segments, transcriptVersion: doc.transcriptVersion ?? 0 };
      const outcome = await summariseAndRecord(this.commands, this.parts.summarizer, source, { metadata, automatic: true });
      return outcome.failure === null ? "refreshed" : "failed";
    } finally {
      release();
    }
  }
}
