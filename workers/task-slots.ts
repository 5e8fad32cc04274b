import type { EventStore } from "../src/eventstore/port.ts";
import { handleCommand } from "../src/core/command-handler.ts";
import { admissionDecider } from "../src/tasks/admission.ts";
import { userStream } from "../src/accounts/events.ts";
import type { TaskEvent } from "../src/tasks/events.ts";
import type { Worker } from "./worker.ts";

/**
 * Gives a user's concurrent-task slot back when a task ends (finished, failed, deleted). Releasing a
 * slot that is already free appends nothing, so redeliveries are harmless.
 */
export function taskSlotWorker(store: EventStore): Worker {
  return {
    name: "task-slots",
    subject: "scribe.task.>",
    async handle(recorded) {
      const event = recorded as unknown as TaskEvent;
      if (event.type !== "TaskFinished" && event.type !== "TaskFailed" && event.type !== "TaskDeleted") return;
      const taskId = Number(recorded.streamName.slice("task-".length));
      // The slot of exactly this attempt: a late event about an earlier attempt frees nothing the retry holds.
      await handleCommand(store, userStream(event.data.userId), admissionDecider, { type: "ReleaseTaskSlot", taskId, attempt: event.data.attempt }, {
        metadata: { correlationId: recorded.metadata.correlationId, causationId: recorded.id, userId: null },
      });
    },
  };
}
