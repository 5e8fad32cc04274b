import { isOneOf, reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { admissionDecider } from "./admission.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { taskIdOfStream, type TaskEvent } from "./events.ts";
import type { Worker } from "../core/worker.ts";
import { secondsCharged } from "./transcripts.ts";

type Ended = Extract<TaskEvent, { type: "TaskFinished" | "TaskFailed" | "TaskDeleted" }>;
type TaskCreated = Extract<TaskEvent, { type: "TaskCreated" }>;

/**
 * Gives a user's concurrent-task slot back when a task ends (finished, failed, deleted), and charges a
 * transcribed task's cost (its media's duration in whole seconds) as it does: the slot is released
 * once, so the charge happens once whatever the redeliveries. A task created with its transcript was
 * not recognised and is not charged; a live session's task was charged as it was admitted (secondsCharged).
 */
export function taskSlotWorker(store: EventStore, now: () => Date = () => new Date()): Worker<Ended> {
  const accounts = new AccountCommands(store);
  return {
    name: "task-slots",
    subject: "scribe.task.>",
    eventTypes: ["TaskFinished", "TaskFailed", "TaskDeleted"],
    async handle(event) {
      const taskId = taskIdOfStream(event.streamName);
      if (taskId === null) return;
      let charge: { seconds: number; now: string } | undefined;
      if (event.type === "TaskFinished" && event.data.cost && event.data.cost > 0) {
        const [created] = (await store.readStream(event.streamName, { maxCount: 1 })).filter(isOneOf<TaskCreated>(["TaskCreated"]));
        const seconds = created ? secondsCharged(created.data, event.data.cost, event.data.attempt) : 0;
        if (seconds > 0) charge = { seconds, now: now().toISOString() };
      }
      // The slot of exactly this attempt: a late event about an earlier attempt frees nothing the retry holds.
      await accounts.decideOnAccount(
        event.data.userId,
        admissionDecider,
        (state) => admissionDecider.decide({ type: "ReleaseTaskSlot", taskId, attempt: event.data.attempt, charge }, state),
        { metadata: reactingTo(event, "task-slots") },
      );
    },
  };
}
