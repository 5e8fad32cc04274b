import { describe, expect, test } from "bun:test";
import { deciderSpec } from "../support/decider-spec.ts";
import { taskDecider } from "../../src/tasks/decider.ts";
import type { TaskEvent } from "../../src/tasks/events.ts";
import type { Recorded } from "../../src/core/event.ts";
import { evolveTranscript, type TranscriptFields } from "../../src/tasks/tasks-projection.ts";

const ids = { userId: 1, taskId: 7 };
const transcript = (sha: string) => ({ key: `transcripts/task-7/${sha}.json`, sha256: sha, segments: 1, bytes: 70 });
const created: TaskEvent = {
  type: "TaskCreated",
  data: {
    ...ids,
    name: "Interview",
    file: "a.mp3",
    path: "uploads/a.mp3",
    disk: "objstore",
    size: 100,
    duration: 60,
    cost: null,
    url: null,
    speakerDiarization: false,
    transcript: null,
    createdAt: "2026-03-04T05:06:07.089Z",
  },
};
/** Recognised: the transcript's version 1, summarised. */
const finished: TaskEvent = {
  type: "TaskFinished",
  data: { ...ids, attempt: 1, name: "Interview", transcript: transcript("a1"), duration: 60, cost: 60, summary: "first", mindmap: "# first" },
};
const edited = (sha: string): TaskEvent => ({ type: "TranscriptEdited", data: { ...ids, transcript: transcript(sha) } });
const refreshed = (transcriptVersion: number, summary = `of ${transcriptVersion}`): TaskEvent => ({
  type: "SummaryRefreshed",
  data: { ...ids, summary, mindmap: `# ${summary}`, transcriptVersion },
});
const summaryFailed = (transcriptVersion: number): TaskEvent => ({ type: "SummaryFailed", data: { ...ids, reason: "no model", transcriptVersion } });

describe("summaries follow edits: the task decider", () => {
  const spec = deciderSpec(taskDecider);

  test("a summary records the version of the transcript it was made from; without one, the current version", () => {
    spec
      .given([created, finished, edited("b2")])
      .when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2", transcriptVersion: 2 })
      .then([refreshed(2)]);
    spec
      .given([created, finished, edited("b2")])
      .when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2" })
      .then([refreshed(2)]);
  });

  test("a summary of an older transcript than a later edit is recorded with its version (the task stays out of date)", () => {
    spec
      .given([created, finished, edited("b2"), edited("c3")])
      .when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2", transcriptVersion: 2, automatic: true })
      .then([refreshed(2)]);
  });

  test("a summary older than the one shown never replaces it: two refreshes that crossed", () => {
    const given = [created, finished, edited("b2"), edited("c3"), refreshed(3)];
    spec.given(given).when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2", transcriptVersion: 2 }).then([]);
    spec.given(given).when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2", transcriptVersion: 2, automatic: true }).then([]);
  });

  test("an automatic refresh of a version already summarised records nothing; one asked for by the user records it again", () => {
    const given = [created, finished, edited("b2"), refreshed(2)];
    spec.given(given).when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2", transcriptVersion: 2, automatic: true }).then([]);
    spec
      .given(given)
      .when({ type: "RecordSummary", summary: "of 2", mindmap: "# of 2", transcriptVersion: 2 })
      .then([refreshed(2)]);
  });

  test("a failure records the version it failed on", () => {
    spec
      .given([created, finished, edited("b2")])
      .when({ type: "RecordSummaryFailure", reason: "no model" })
      .then([summaryFailed(2)]);
  });
});

let position = 0;
const recorded = (event: TaskEvent, time = "2026-03-04T06:00:00.000Z"): Recorded<TaskEvent> =>
  ({ ...event, id: crypto.randomUUID(), streamName: "task-7", revision: position, position: position++, time, metadata: {} }) as Recorded<TaskEvent>;
const fold = (events: TaskEvent[]) => events.reduce<TranscriptFields | null>((doc, event) => evolveTranscript(doc, recorded(event, `t${position}`)), null);

describe("summaries follow edits: the transcripts read model", () => {
  test("an edit marks the summary out of date, due for a refresh, and says when it came", () => {
    expect(fold([created, finished])).toMatchObject({ transcriptVersion: 1, summaryVersion: 1, summaryOutdated: false, refreshDue: false });
    const doc = fold([created, finished, edited("b2")]);
    expect(doc).toMatchObject({ transcriptVersion: 2, summaryVersion: 1, summaryOutdated: true, refreshDue: true, summary: "first" });
    expect(doc?.editedAt).toStartWith("t");
  });

  test("a summary of the current version clears the mark; one of an older version leaves it", () => {
    expect(fold([created, finished, edited("b2"), refreshed(2)])).toMatchObject({ summaryOutdated: false, refreshDue: false, summary: "of 2" });
    expect(fold([created, finished, edited("b2"), edited("c3"), refreshed(2)])).toMatchObject({ summaryOutdated: true, refreshDue: true, summary: "of 2" });
  });

  test("a failure stays visible and is not tried again at the same version; the next edit or a summary ends that", () => {
    const failed = fold([created, finished, edited("b2"), summaryFailed(2)]);
    expect(failed).toMatchObject({ summaryOutdated: true, refreshDue: false, summaryFailure: { reason: "no model", transcriptVersion: 2 } });
    expect(fold([created, finished, edited("b2"), summaryFailed(2), edited("c3")])).toMatchObject({
      refreshDue: true,
      summaryFailure: { transcriptVersion: 2 },
    });
    expect(fold([created, finished, edited("b2"), summaryFailed(2), refreshed(2)])).toMatchObject({ summaryOutdated: false, summaryFailure: null });
  });

  test("a summary recorded before versions were kept is of the transcript of its moment", () => {
    const legacy: TaskEvent = { type: "SummaryRefreshed", data: { ...ids, summary: "old", mindmap: null } };
    expect(fold([created, finished, edited("b2"), legacy])).toMatchObject({ transcriptVersion: 2, summaryVersion: 2, summaryOutdated: false });
  });

  test("a supplied transcript edited before its task finished: the summary made of it as created is out of date", () => {
    const supplied: TaskEvent = { ...created, data: { ...created.data, transcript: transcript("s1") } } as TaskEvent;
    const finishedSupplied: TaskEvent = { ...finished, data: { ...finished.data, transcript: null } } as TaskEvent;
    expect(fold([supplied, finishedSupplied])).toMatchObject({ transcriptVersion: 1, summaryVersion: 1, summaryOutdated: false });
    expect(fold([supplied, edited("b2"), finishedSupplied])).toMatchObject({ transcriptVersion: 2, summaryVersion: 1, summaryOutdated: true });
  });

  test("before a task finishes, nothing is out of date: its first summary comes with its end", () => {
    expect(fold([created, edited("b1")])).toMatchObject({ transcriptVersion: 1, summaryVersion: null, summaryOutdated: false, refreshDue: false });
  });
});
