/**
 * Re-driving a task whose work was lost: the task decider's RequeueTask, the trigger a re-drive supersedes,
 * and which slots the stuck-task sweeper may free (endedAttempt).
 */
import { describe, expect, test } from "bun:test";
import { deciderSpec } from "../support/decider-spec.ts";
import { taskDecider, type TaskCommand } from "../../src/tasks/decider.ts";
import { supersededByRequeue, type Disk, type TaskEvent } from "../../src/tasks/events.ts";
import { endedAttempt } from "../../src/tasks/slots.ts";
import type { RecordedEvent } from "../../src/core/event.ts";
import { NotFoundError } from "../../src/core/errors.ts";

const now = "2026-03-04T05:06:07.089Z";
const ids = { userId: 1, taskId: 7 };
const created = (disk: Disk = "objstore", supplied = false): TaskEvent => ({
  type: "TaskCreated",
  data: {
    ...ids,
    name: "Interview",
    file: "a.mp3",
    path: disk === "objstore" ? "uploads/a.mp3" : "https://example.com/a.mp3",
    disk,
    size: 100,
    duration: 60,
    cost: 60,
    url: disk === "objstore" ? null : "https://example.com/a.mp3",
    speakerDiarization: false,
    transcript: supplied ? { key: "transcripts/task-7/ab.json", sha256: "ab", segments: 1, bytes: 70 } : null,
    createdAt: now,
  },
});
const requeued = (step: "fetch" | "transcribe" | "supply", requeue = 1, attempt = 1): TaskEvent => ({
  type: "TaskRequeued",
  data: { ...ids, attempt, step, requeue },
});
const failed = (attempt = 1): TaskEvent => ({ type: "TaskFailed", data: { ...ids, attempt, name: "Interview", reason: "boom" } });
const finished = (attempt = 1, cost: number | null = 60): TaskEvent => ({
  type: "TaskFinished",
  data: { ...ids, attempt, name: "Interview", transcript: null, duration: 60, cost, summary: null, mindmap: null },
});
const retried = (attempt: number, status: "pending" | "waiting" = "pending"): TaskEvent => ({ type: "TaskRetried", data: { ...ids, attempt, status } });
const fetchStarted: TaskEvent = { type: "MediaFetchStarted", data: ids };
const fetched: TaskEvent = { type: "MediaFetched", data: { ...ids, path: "media/1/7/x.mp3", size: 100, contentType: "audio/mpeg", file: "a.mp3" } };
const reason = "Transcription did not start within 2 h; retry the task to try again.";
const requeue = (requeues = 0, attempt = 1): TaskCommand => ({ type: "RequeueTask", attempt, requeues, maxRequeues: 3, reason });

describe("RequeueTask", () => {
  const spec = deciderSpec(taskDecider);

  test("names the worker that carries the task on: recognition, the fetch, or the supplied transcript's finish", () => {
    spec
      .given([created()])
      .when(requeue())
      .then([requeued("transcribe")]);
    spec
      .given([created("remote")])
      .when(requeue())
      .then([requeued("fetch")]);
    spec
      .given([created("videolink"), fetchStarted])
      .when(requeue())
      .then([requeued("fetch")]);
    spec
      .given([created("remote"), fetchStarted, fetched])
      .when(requeue())
      .then([requeued("transcribe")]);
    spec
      .given([created("objstore", true)])
      .when(requeue())
      .then([requeued("supply")]);
  });

  test("a retried attempt starts its count again and needs its media again when it is fetched", () => {
    const history = [created("remote"), fetchStarted, fetched, requeued("transcribe", 1), failed(), retried(2, "waiting")];
    spec
      .given(history)
      .when(requeue(0, 2))
      .then([requeued("fetch", 1, 2)]);
    spec
      .given([created(), requeued("transcribe", 2), failed(), retried(2)])
      .when(requeue(0, 2))
      .then([requeued("transcribe", 1, 2)]);
  });

  test("is decided for the re-drives the sweeper saw, so two sweepers at once append one", () => {
    spec
      .given([created(), requeued("transcribe", 1)])
      .when(requeue(0))
      .then([]);
    spec
      .given([created(), requeued("transcribe", 1)])
      .when(requeue(1))
      .then([requeued("transcribe", 2)]);
  });

  test("after the last re-drive the task fails with the reason, so it can be retried", () => {
    const history = [created(), requeued("transcribe", 1), requeued("transcribe", 2), requeued("transcribe", 3)];
    spec
      .given(history)
      .when(requeue(3))
      .then([{ type: "TaskFailed", data: { ...ids, attempt: 1, name: "Interview", reason } }]);
  });

  test("leaves a task that moved on alone: scribing, finished, failed, or another attempt", () => {
    spec
      .given([created(), { type: "TranscriptionStarted", data: ids }])
      .when(requeue())
      .then([]);
    spec.given([created(), finished()]).when(requeue()).then([]);
    spec.given([created(), failed()]).when(requeue()).then([]);
    spec
      .given([created(), failed(), retried(2)])
      .when(requeue(0, 1))
      .then([]);
    spec.given([]).when(requeue()).thenThrows(NotFoundError);
    spec
      .given([created(), { type: "TaskDeleted", data: { ...ids, wasInFlight: true, attempt: 1 } }])
      .when(requeue())
      .thenThrows(NotFoundError);
  });

  test("a re-driven task finishes and fails once: a late finish of the same attempt after it ended appends nothing", () => {
    spec
      .given([created(), requeued("transcribe"), finished()])
      .when({ type: "FinishTask", transcript: null, duration: 1, cost: 1, summary: null, mindmap: null, attempt: 1 })
      .then([]);
  });
});

const recorded = (events: TaskEvent[], times: string[] = []): RecordedEvent[] =>
  events.map((event, revision) => ({
    ...event,
    id: `e${revision}`,
    metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
    streamName: "task-7",
    revision,
    position: revision + 1,
    time: times[revision] ?? now,
  }));

describe("supersededByRequeue", () => {
  test("a trigger followed by a re-drive leaves the work to the re-drive; the re-drive itself and a later trigger do not", () => {
    const events = recorded([created("remote"), requeued("fetch"), fetchStarted, fetched]);
    expect(supersededByRequeue(events, events[0]!)).toBe(true);
    expect(supersededByRequeue(events, events[1]!)).toBe(false);
    expect(supersededByRequeue(events, events[3]!)).toBe(false);
  });
});

describe("endedAttempt", () => {
  const t = (second: number) => `2026-03-04T05:06:${String(second).padStart(2, "0")}.000Z`;
  test("a finished attempt ends when it finished, charged its cost; a supplied transcript is not charged", () => {
    expect(endedAttempt(recorded([created(), finished(1, 42)], [t(0), t(5)]), 1)).toEqual({ endedAt: t(5), chargeSeconds: 42 });
    expect(endedAttempt(recorded([created("objstore", true), finished(1, 42)]), 1)).toEqual({ endedAt: now, chargeSeconds: 0 });
    expect(endedAttempt(recorded([created(), finished(1, null)]), 1)?.chargeSeconds).toBe(0);
  });

  test("failed, superseded by a retry, or deleted ends an attempt without a charge", () => {
    expect(endedAttempt(recorded([created(), failed()], [t(0), t(3)]), 1)).toEqual({ endedAt: t(3), chargeSeconds: 0 });
    expect(endedAttempt(recorded([created(), failed(), retried(2)], [t(0), t(3), t(4)]), 1)).toEqual({ endedAt: t(3), chargeSeconds: 0 });
    const deleted: TaskEvent = { type: "TaskDeleted", data: { ...ids, wasInFlight: false, attempt: 1 } };
    // A retry's slot (attempt 2) whose retry was never recorded, then the task deleted: nothing can use it.
    expect(endedAttempt(recorded([created(), failed(), deleted], [t(0), t(3), t(9)]), 2)).toEqual({ endedAt: t(9), chargeSeconds: 0 });
    // Finished, then deleted: the finish is what it is charged for.
    expect(endedAttempt(recorded([created(), finished(1, 7), deleted]), 1)).toEqual({ endedAt: now, chargeSeconds: 7 });
  });

  test("an attempt still in flight, or not begun, has not ended", () => {
    expect(endedAttempt(recorded([created()]), 1)).toBeNull();
    expect(endedAttempt(recorded([created(), { type: "TranscriptionStarted", data: ids }]), 1)).toBeNull();
    expect(endedAttempt(recorded([created(), failed()]), 2)).toBeNull();
    expect(endedAttempt(recorded([created(), failed(), retried(2)]), 2)).toBeNull();
  });
});
