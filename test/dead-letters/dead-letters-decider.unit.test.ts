import { describe, expect, test } from "bun:test";
import { deciderSpec } from "../support/decider-spec.ts";
import { projectionSpec } from "../support/projection-spec.ts";
import { ConflictError, NotFoundError } from "../../src/core/errors.ts";
import { deadLetterDecider, type DeadLetterCommand } from "../../src/dead-letters/decider.ts";
import { deadLetterIdOf, deadLetterStream, isDeadLetterId, type DeadLetterEvent, type DeadLetterReference } from "../../src/dead-letters/events.ts";
import { deadLettersProjection } from "../../src/dead-letters/dead-letters-projection.ts";
import { describeError, maxErrorLength } from "../../src/dead-letters/record.ts";
import { notificationsProjection } from "../../src/notifications/notifications-projection.ts";

const now = "2026-01-01T00:00:00.000Z";
const later = "2026-01-01T01:00:00.000Z";
const id = deadLetterIdOf("exports", "event-1");
const reference: DeadLetterReference = { deadLetterId: id, worker: "exports", eventId: "event-1", eventType: "ExportRequested", stream: "task-7", revision: 3 };
const task = { taskId: 7, userId: 42, name: "Interview" };

const record = (error = "boom", at = now): DeadLetterCommand => ({ type: "RecordDeadLetter", reference, deliveries: 5, error, task, now: at });
const deadLettered = (occurrence = 1, error = "boom", at = now): DeadLetterEvent => ({
  type: "MessageDeadLettered",
  data: { ...reference, deliveries: 5, error, occurrence, task, at },
});
const retried: DeadLetterEvent = { type: "DeadLetterRetried", data: { ...reference, at: later } };
const resolved: DeadLetterEvent = { type: "DeadLetterResolved", data: { deadLetterId: id, at: later } };
const dropped: DeadLetterEvent = { type: "DeadLetterDropped", data: { deadLetterId: id, at: later } };

describe("dead letters: the decider", () => {
  const spec = deciderSpec(deadLetterDecider);

  test("a message that failed on every delivery is recorded once while it is open", () => {
    spec.given([]).when(record()).then([deadLettered()]);
    spec.given([deadLettered()]).when(record("again")).then([]);
  });

  test("a retry that fails again opens it again, counted", () => {
    spec
      .given([deadLettered(), retried])
      .when(record("still broken", later))
      .then([deadLettered(2, "still broken", later)]);
    spec
      .given([deadLettered(), retried, resolved])
      .when(record())
      .then([deadLettered(2)]);
  });

  test("retry takes an open one only", () => {
    spec.given([deadLettered()]).when({ type: "RetryDeadLetter", now: later }).then([retried]);
    spec.given([]).when({ type: "RetryDeadLetter", now: later }).thenThrows(NotFoundError);
    spec
      .given([deadLettered(), retried])
      .when({ type: "RetryDeadLetter", now: later })
      .thenThrows(ConflictError, /is retrying, not open/);
    spec
      .given([deadLettered(), dropped])
      .when({ type: "RetryDeadLetter", now: later })
      .thenThrows(ConflictError, /is dropped/);
  });

  test("drop takes an open one, or one being retried (its redrive then does nothing)", () => {
    spec.given([deadLettered()]).when({ type: "DropDeadLetter", now: later }).then([dropped]);
    spec.given([deadLettered(), retried]).when({ type: "DropDeadLetter", now: later }).then([dropped]);
    spec.given([]).when({ type: "DropDeadLetter", now: later }).thenThrows(NotFoundError);
    spec
      .given([deadLettered(), retried, resolved])
      .when({ type: "DropDeadLetter", now: later })
      .thenThrows(ConflictError, /is resolved/);
  });

  test("only a retry in flight resolves; a redelivered success changes nothing", () => {
    spec.given([deadLettered(), retried]).when({ type: "ResolveDeadLetter", now: later }).then([resolved]);
    spec.given([deadLettered(), retried, resolved]).when({ type: "ResolveDeadLetter", now: later }).then([]);
    spec.given([deadLettered(), retried, dropped]).when({ type: "ResolveDeadLetter", now: later }).then([]);
  });
});

describe("dead letters: ids and errors", () => {
  test("the id is the same for the same worker and event, and differs otherwise", () => {
    expect(deadLetterIdOf("exports", "event-1")).toBe(id);
    expect(isDeadLetterId(id)).toBe(true);
    expect(deadLetterIdOf("webhooks", "event-1")).not.toBe(id);
    expect(deadLetterIdOf("exports", "event-2")).not.toBe(id);
    expect(deadLetterStream(id)).toBe(`deadletter-${id}`);
    expect(isDeadLetterId("../task-1")).toBe(false);
  });

  test("the error kept is scrubbed of secrets and bounded", () => {
    expect(describeError(new Error("fetch https://s3.example.com/b/k?X-Amz-Signature=abc failed\n  at x"))).toBe(
      "fetch https://s3.example.com/b/k?[REDACTED] failed at x",
    );
    expect(describeError(new Error("Bearer abcdefghijklmnop"))).toBe("Bearer [REDACTED]");
    const long = describeError(new Error("x".repeat(5000)));
    expect(long.length).toBe(maxErrorLength);
    expect(long.endsWith("…")).toBe(true);
    expect(describeError("plain")).toBe("plain");
  });
});

describe("dead letters: read models", () => {
  const stream = deadLetterStream(id);
  const given = (type: DeadLetterEvent["type"], data: unknown) => ({ streamName: stream, type, data });

  test("dead_letters: open, retrying, open again, dropped", async () => {
    await projectionSpec(deadLettersProjection)
      .given([
        given("MessageDeadLettered", deadLettered().data),
        given("DeadLetterRetried", retried.data),
        given("MessageDeadLettered", deadLettered(2, "still broken", later).data),
        given("DeadLetterDropped", dropped.data),
      ])
      .then({
        dead_letters: [
          {
            _id: id,
            id,
            worker: "exports",
            eventId: "event-1",
            eventType: "ExportRequested",
            stream: "task-7",
            revision: 3,
            taskId: 7,
            status: "dropped",
            error: "still broken",
            deliveries: 5,
            occurrences: 2,
            deadLetteredAt: later,
            updatedAt: later,
          },
        ],
      });
  });

  test("the task's owner is told once, the first time; a dead letter about no task tells nobody", async () => {
    const other = { ...deadLettered().data, stream: "upload-u1", task: null, deadLetterId: deadLetterIdOf("upload-completion", "e2") };
    await projectionSpec(notificationsProjection)
      .given([
        given("MessageDeadLettered", deadLettered().data),
        given("MessageDeadLettered", deadLettered(2).data),
        { streamName: "deadletter-x", type: "MessageDeadLettered", data: other },
      ])
      .then({
        notifications: [
          {
            _id: expect.any(String),
            userId: 42,
            kind: "task_problem",
            taskId: 7,
            title: "Task problem",
            message: 'Processing of task "Interview" hit a problem and was set aside for the operator, who can run it again once it is fixed.',
            read_at: null,
          },
        ],
      });
  });
});
