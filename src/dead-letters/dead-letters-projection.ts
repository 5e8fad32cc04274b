/**
 * The `dead_letters` read model: one document per dead letter (keyed by its id), with its status, what failed
 * and why, and the task it is about. `bun run admin dead-letters list` reads the open ones; resolved and dropped
 * ones stay as a record of what was done.
 */
import type { Recorded } from "../core/event.ts";
import { positionGuarded, type ProjectedDocument, type Projection } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { DeadLetterStatus } from "./decider.ts";
import { deadLetterEventTypes, type DeadLetterEvent } from "./events.ts";
import type { TaskEvent } from "../tasks/events.ts";
import { erasedText } from "../erasure/personal-fields.ts";

export type DeadLetterFields = {
  id: string;
  worker: string;
  eventId: string;
  eventType: string;
  stream: string;
  revision: number;
  /** The task the event is about (on `task-<id>`); null for other streams. */
  taskId: number | null;
  status: DeadLetterStatus;
  /** Why its last delivery failed, the latest time it was dead-lettered. */
  error: string;
  deliveries: number;
  /** How many times it was dead-lettered (a retry that failed again adds one). */
  occurrences: number;
  deadLetteredAt: string;
  updatedAt: string;
};
export type DeadLetterDocument = ProjectedDocument & DeadLetterFields;

const statusAfter: Record<Exclude<DeadLetterEvent["type"], "MessageDeadLettered">, DeadLetterStatus> = {
  DeadLetterRetried: "retrying",
  DeadLetterResolved: "resolved",
  DeadLetterDropped: "dropped",
};

export function evolveDeadLetter(current: DeadLetterFields | null, event: Recorded<DeadLetterEvent>): DeadLetterFields | null {
  if (event.type === "MessageDeadLettered") {
    const { deadLetterId, worker, eventId, eventType, stream, revision, task, error, deliveries, occurrence, at } = event.data;
    return {
      id: deadLetterId,
      worker,
      eventId,
      eventType,
      stream,
      revision,
      taskId: task?.taskId ?? null,
      status: "open",
      error,
      deliveries,
      occurrences: occurrence,
      deadLetteredAt: at,
      updatedAt: at,
    };
  }
  return current && { ...current, status: statusAfter[event.type], updatedAt: event.data.at };
}

const applyDeadLetter = positionGuarded<DeadLetterFields, DeadLetterEvent>({
  collection: "dead_letters",
  documentId: (recorded) => recorded.data.deadLetterId,
  evolve: evolveDeadLetter,
});

export const deadLettersProjection: Projection<DeadLetterEvent | Extract<TaskEvent, { type: "TaskDeleted" }>> = {
  name: "dead_letters",
  // 2: a deleted task's dead letters lose their error, which may quote the task's content (src/erasure).
  version: 2,
  collections: ["dead_letters"],
  eventTypes: [...deadLetterEventTypes, "TaskDeleted"],
  async setup(db) {
    await db.collection("dead_letters").createIndex({ status: 1, deadLetteredAt: 1 });
  },
  async apply(recorded, db) {
    if (recorded.type !== "TaskDeleted") return applyDeadLetter(recorded, db);
    // In the log the error is under the task's key, destroyed with it; the copy here goes now. Idempotent.
    await db.collection<DeadLetterDocument>("dead_letters").updateMany({ taskId: recorded.data.taskId }, { $set: { error: erasedText } });
  },
};

/** The open dead letters, oldest first. */
export function openDeadLetters(db: DocumentStore): Promise<DeadLetterDocument[]> {
  return db.collection<DeadLetterDocument>("dead_letters").find({ status: "open" }, { sort: { deadLetteredAt: 1 } });
}

/** For `scribe_dead_letters_open`. */
export function openDeadLetterCount(db: DocumentStore): Promise<number> {
  return db.collection<DeadLetterDocument>("dead_letters").countDocuments({ status: "open" });
}
