import { reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import { admissionDecider } from "./admission.ts";
import { userStream } from "../accounts/events.ts";
import type { TaskEvent } from "./events.ts";
import type { Worker } from "../core/worker.ts";
import { secondsCharged } from "./transcripts.ts";

type Created = Extract<TaskEvent, { type: "TaskCreated" }>;

/**
 * Gives a user's concurrent-task slot back when a task ends (finished, failed, deleted), and charges a
 * transcribed task's cost (its media's duration in whole seconds) as it does: the slot is released
 * once, so the charge happens once whatever the redeliveries. A task created with its transcript was
 * not recognised and is not charged.
 */
export function taskSlotWorker(store: EventStore, now: () => Date = () => new Date()): Worker {
  return {
    name: "task-slots",
    subject: "scribe.task.>",
    async handle(recorded) {
      const event = recorded as unknown as TaskEvent;
      if (event.type !== "TaskFinished" && event.type !== "TaskFailed" && event.type !== "TaskDeleted") return;
      const taskId = Number(recorded.streamName.slice("task-".length));
      let charge: { seconds: number; now: string } | undefined;
      if (event.type === "TaskFinished" && event.data.cost && event.data.cost > 0) {
        const [created] = (await store.readStream(recorded.streamName, { maxCount: 1 })) as unknown as Created[];
        const seconds = created?.type === "TaskCreated" ? secondsCharged(created.data, event.data.cost) : 0;
        if (seconds > 0) charge = { seconds, now: now().toISOString() };
      }
      // The slot of exactly this attempt: a late event about an earlier attempt frees nothing the retry holds.
      await handle(
        store,
        userStream(event.data.userId),
        admissionDecider,
        (state) => admissionDecider.decide({ type: "ReleaseTaskSlot", taskId, attempt: event.data.attempt, charge }, state),
        { metadata: reactingTo(recorded, "task-slots") },
      );
    },
  };
}
