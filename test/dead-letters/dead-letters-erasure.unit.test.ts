import { test } from "bun:test";
import { deadLettersProjection } from "../../src/dead-letters/dead-letters-projection.ts";
import { projectionSpec, type GivenEvent } from "../support/projection-spec.ts";

/** A deleted task's dead letters keep their facts but lose their error, which may quote the task's content (src/erasure). */

const deadLettered = (id: string, task: { taskId: number; userId: number } | null, error: string): GivenEvent => ({
  streamName: `deadletter-${id}`,
  type: "MessageDeadLettered",
  data: {
    deadLetterId: id,
    worker: "fetch-media",
    eventId: `event-${id}`,
    eventType: "TaskCreated",
    stream: task ? `task-${task.taskId}` : "webhookmessage-m",
    revision: 0,
    deliveries: 5,
    error,
    occurrence: 1,
    task: task && { ...task, name: "Private" },
    at: "2026-01-01T00:00:00.000Z",
  },
});

test("TaskDeleted blanks the error of its task's dead letters only", () =>
  projectionSpec(deadLettersProjection)
    .given([
      deadLettered("01", { taskId: 3, userId: 7 }, "the host private.example could not be resolved"),
      deadLettered("02", { taskId: 4, userId: 7 }, "kept error"),
      deadLettered("03", null, "no task"),
      { streamName: "task-3", type: "TaskDeleted", data: { taskId: 3, userId: 7, wasInFlight: false, attempt: 1 } },
    ])
    .then({
      dead_letters: [
        { _id: "01", taskId: 3, status: "open", error: "[erased]", deliveries: 5 },
        { _id: "02", taskId: 4, error: "kept error" },
        { _id: "03", taskId: null, error: "no task" },
      ],
    }));
