import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import { taskEventTypes, taskIdOfStream, type TaskEvent } from "./events.ts";

type HistoryFields = {
  taskId: number;
  position: number;
  type: string;
  time: string;
  /** Who acted: a user's id, or null when the system did (then `actingSystem` names which part). */
  actingUserId: number | null;
  actingSystem: string | null;
  summary: Record<string, unknown>;
};

/** The `task_history` read model: one document per task event (keyed by its id), for the owner's history view. */
export type TaskHistoryDocument = ProjectedDocument & HistoryFields;

const large = new Set(["segments", "summary", "mindmap", "transcript"]);

function describeLarge(value: unknown): unknown {
  if (Array.isArray(value)) return `${value.length} segments`;
  if (typeof value === "string") return `${value.length} characters`;
  // A transcript stored as a blob: its reference says how many segments it holds.
  if (value !== null && typeof value === "object" && typeof (value as { segments?: unknown }).segments === "number")
    return `${(value as { segments: number }).segments} segments`;
  return value;
}

/** The data of an event with the bulky parts (transcripts) replaced by their size. */
export function summarize(data: unknown): Record<string, unknown> {
  const summary: Record<string, unknown> = {};
  for (const [key, value] of Object.entries((data ?? {}) as Record<string, unknown>)) {
    // A transcript reference reads as the inline segments did before transcripts moved to blobs.
    if (large.has(key)) summary[key === "transcript" ? "segments" : key] = describeLarge(value);
    else summary[key] = value;
  }
  return summary;
}

/** One document per event, written once. */
const recordEvent = positionGuarded<HistoryFields, TaskEvent>({
  collection: "task_history",
  documentId: (event) => (taskIdOfStream(event.streamName) === null ? null : event.id),
  evolve: (current, event) =>
    current ?? {
      taskId: taskIdOfStream(event.streamName)!,
      position: event.position,
      type: event.type,
      time: event.time,
      actingUserId: event.metadata.userId,
      actingSystem: event.metadata.system,
      summary: summarize(event.data),
    },
});

export const taskHistoryProjection: Projection<TaskEvent> = {
  name: "task_history",
  // 2: each document keeps its event's position (`_position`), as every read model does; 3: who acted, user or system;
  // 4: a deleted task's history leaves with it.
  version: 4,
  collections: ["task_history"],
  eventTypes: taskEventTypes,
  async setup(db) {
    await db.collection("task_history").createIndex({ taskId: 1, position: 1 });
  },
  async apply(event, db) {
    // A deleted task's history goes with it: its summaries name it (DESIGN.md, "Personal data in an immutable log").
    const taskId = taskIdOfStream(event.streamName);
    if (event.type === "TaskDeleted" && taskId !== null) await db.collection("task_history").deleteMany({ taskId, position: { $lt: event.position } });
    await recordEvent(event, db);
  },
};
