import { reactingTo, type RecordedEvent } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { scrubber } from "../logging/scrubbing.ts";
import { taskIdOf } from "../tasks/commands.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { deadLetterDecider } from "./decider.ts";
import { deadLetterIdOf, deadLetterStream, type AffectedTask } from "./events.ts";

/** The stored event a worker failed on: what a dead letter names, and where its task's owner is read from. */
export type FailedEvent = Pick<RecordedEvent, "id" | "type" | "streamName" | "revision" | "data" | "metadata">;

/** A message failed on its last delivery while the worker's dependencies answered. */
export type DeadLetterFailure = { worker: string; event: FailedEvent; deliveries: number; error: unknown };

/** Records a dead letter (once per worker and event while it is open); resolves to its id. */
export type DeadLetterRecorder = (failure: DeadLetterFailure) => Promise<string>;

/** A task's owner and name, for the notification; null when the task is not known (yet). */
export type TaskOf = (taskId: number) => Promise<{ userId: number; name: string } | null>;

/** What is kept of an error: its message, without secrets (the scrubber's patterns), at most this long. */
export const maxErrorLength = 500;
const scrub = scrubber();

export function describeError(error: unknown): string {
  const text = scrub((error instanceof Error ? error.message : String(error)).replace(/\s+/g, " ").trim()) || "(no message)";
  return text.length > maxErrorLength ? `${text.slice(0, maxErrorLength - 1)}…` : text;
}

/** Owner and name from the `tasks` read model: the event itself may not carry the name (most task events do not). */
export function taskOfReadModel(documents: DocumentStore): TaskOf {
  return async (taskId) => {
    const task = await documents.collection<TaskDocument>("tasks").findOne({ _id: String(taskId) });
    return task && { userId: task.userId, name: task.name };
  };
}

/** The task the event is about, when it is on a task's stream: its owner from the read model, or the event's own `userId`. */
async function affectedTask(event: FailedEvent, taskOf: TaskOf | undefined): Promise<AffectedTask | null> {
  const taskId = taskIdOf(event);
  if (taskId === null) return null;
  const data = (event.data ?? {}) as { userId?: unknown; name?: unknown };
  const known = taskOf ? await taskOf(taskId) : null;
  const userId = known?.userId ?? (typeof data.userId === "number" ? data.userId : null);
  if (userId === null) return null;
  return { taskId, userId, name: known?.name ?? (typeof data.name === "string" ? data.name : null) };
}

/**
 * The recorder the workers use: a command on the dead letter's stream, acted by the worker in the failed event's
 * correlation. `taskOf` names the task in its owner's notification.
 */
export function deadLetterRecorder(store: EventStore, options: { taskOf?: TaskOf; now?: () => Date } = {}): DeadLetterRecorder {
  const now = options.now ?? (() => new Date());
  return async ({ worker, event, deliveries, error }) => {
    const deadLetterId = deadLetterIdOf(worker, event.id);
    const task = await affectedTask(event, options.taskOf);
    const reference = { deadLetterId, worker, eventId: event.id, eventType: event.type, stream: event.streamName, revision: event.revision };
    await handle(
      store,
      deadLetterStream(deadLetterId),
      deadLetterDecider,
      (state) =>
        deadLetterDecider.decide({ type: "RecordDeadLetter", reference, deliveries, error: describeError(error), task, now: now().toISOString() }, state),
      { metadata: reactingTo(event, worker) },
    );
    return deadLetterId;
  };
}
