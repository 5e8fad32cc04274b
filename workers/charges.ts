import type { EventStore } from "../src/eventstore/port.ts";
import { handleCommand } from "../src/core/command-handler.ts";
import { userDecider } from "../src/accounts/decider.ts";
import { userStream } from "../src/accounts/events.ts";
import type { TaskEvent } from "../src/tasks/events.ts";
import type { Worker } from "./worker.ts";

/**
 * Charges a transcribed task's cost (its media's duration in whole seconds) to its owner when it
 * finishes. The account decider charges a task once whatever the redeliveries; a task created with
 * its transcript was not recognised and is not charged.
 */
export function chargeWorker(store: EventStore, now: () => Date = () => new Date()): Worker {
  return {
    name: "task-charges",
    subject: "scribe.task.TaskFinished",
    async handle(recorded) {
      const event = recorded as unknown as Extract<TaskEvent, { type: "TaskFinished" }>;
      const { userId, taskId, cost } = event.data;
      if (!cost || cost <= 0) return;
      const created = (await store.readStream(recorded.streamName)).find((e) => e.type === "TaskCreated") as unknown as Extract<TaskEvent, { type: "TaskCreated" }> | undefined;
      if (!created || created.data.segments !== null) return;
      await handleCommand(store, userStream(userId), userDecider, { type: "ChargeSeconds", taskId, seconds: cost, now: now().toISOString() }, {
        metadata: { correlationId: recorded.metadata.correlationId, causationId: recorded.id, userId: null },
      });
    },
  };
}
