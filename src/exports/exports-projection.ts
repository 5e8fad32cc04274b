import type { Recorded } from "../core/event.ts";
import type { Projection, ProjectedDocument } from "../core/projection.ts";
import { positionGuarded } from "../core/projection.ts";
import { taskIdOf, type TaskEvent } from "../tasks/events.ts";

/**
 * The `exports` read model: per task and heavy format (`<taskId>:<format>`), the newest export file
 * made (its transcript `version` and blob `key`) and the last request for one. The download route
 * compares `version` with the task's current `exportVersion`: a file of an older version is never served.
 */
export type ExportFields = {
  taskId: number;
  userId: number;
  format: string;
  version: string | null;
  key: string | null;
  size: number | null;
  generatedAt: string | null;
  requestedVersion: string | null;
  requestedAt: string | null;
};
export type ExportDocument = ProjectedDocument & ExportFields;

export const exportDocumentId = (taskId: number, format: string) => `${taskId}:${format}`;

type ExportEvent = Extract<TaskEvent, { type: "ExportGenerated" | "ExportRequested" }>;

const newer = (a: string, b: string | null) => b === null || BigInt(a) >= BigInt(b);

function evolveExport(doc: ExportFields | null, event: Recorded<ExportEvent>): ExportFields | null {
  const taskId = taskIdOf(event);
  if (taskId === null) return doc;
  const current: ExportFields = doc ?? {
    taskId,
    userId: event.data.userId,
    format: event.data.format,
    version: null,
    key: null,
    size: null,
    generatedAt: null,
    requestedVersion: null,
    requestedAt: null,
  };
  if (event.type === "ExportRequested") return { ...current, requestedVersion: event.data.version, requestedAt: event.data.requestedAt };
  // A slow worker may finish an older version after a newer one: the newest version stays.
  if (!newer(event.data.version, current.version)) return current;
  return { ...current, version: event.data.version, key: event.data.key, size: event.data.size, generatedAt: event.time };
}

const applyExport = positionGuarded<ExportFields, ExportEvent>({
  collection: "exports",
  documentId: (event) => {
    const taskId = taskIdOf(event);
    return taskId === null ? null : exportDocumentId(taskId, event.data.format);
  },
  evolve: evolveExport,
});

export const exportsProjection: Projection<ExportEvent | Extract<TaskEvent, { type: "TaskDeleted" }>> = {
  name: "exports",
  collections: ["exports"],
  eventTypes: ["ExportGenerated", "ExportRequested", "TaskDeleted"],
  async setup(db) {
    await db.collection("exports").createIndex({ taskId: 1 });
  },
  async apply(event, db) {
    if (event.type !== "TaskDeleted") return applyExport(event, db);
    const taskId = taskIdOf(event);
    if (taskId !== null) await db.collection<ExportDocument>("exports").deleteMany({ taskId });
  },
};
