import type { Recorded } from "../core/event.ts";
import type { Projection, ProjectedDocument } from "../core/projection.ts";
import { positionGuarded } from "../core/projection.ts";
import { uploadEventTypes, uploadIdOfStream, type UploadEvent } from "./events.ts";
import type { TaskEvent } from "../tasks/events.ts";

/**
 * The `uploads` read model: one document per upload session, for the cleanup job (sessions past
 * their expiry, completions whose task was never created).
 */
export type UploadFields = {
  uploadId: string;
  userId: number;
  key: string;
  status: "open" | "completed" | "aborted" | "expired";
  expiresAt: string;
  taskId: number | null;
  completedAt: string | null;
  /** The completion's task exists (its TaskCreated was seen). */
  taskCreated: boolean;
};
export type UploadDocument = ProjectedDocument & UploadFields;

function evolveUpload(doc: UploadFields | null, event: Recorded<UploadEvent>): UploadFields | null {
  if (event.type === "UploadSigned") {
    const { uploadId, userId, key, expiresAt } = event.data;
    return { uploadId, userId, key, status: "open", expiresAt, taskId: null, completedAt: null, taskCreated: false };
  }
  if (doc === null) return null;
  switch (event.type) {
    case "UploadCompleted":
      return { ...doc, status: "completed", taskId: event.data.taskId, completedAt: event.data.completedAt };
    case "UploadAborted":
      return { ...doc, status: "aborted" };
    case "UploadExpired":
      return { ...doc, status: "expired" };
  }
}

const applyUpload = positionGuarded<UploadFields, UploadEvent>({
  collection: "uploads",
  documentId: (e) => uploadIdOfStream(e.streamName),
  evolve: evolveUpload,
});

export const uploadsProjection: Projection<UploadEvent | Extract<TaskEvent, { type: "TaskCreated" }>> = {
  name: "uploads",
  collections: ["uploads"],
  eventTypes: [...uploadEventTypes, "TaskCreated"],
  async setup(db) {
    await db.collection("uploads").createIndex({ status: 1, expiresAt: 1 });
    await db.collection("uploads").createIndex({ taskId: 1 });
  },
  async apply(event, db) {
    if (event.type === "TaskCreated") {
      // Always after the UploadCompleted naming it, so the document is there; setting a flag is idempotent.
      const taskId = event.data.taskId;
      await db.collection<UploadDocument>("uploads").updateMany({ taskId }, { $set: { taskCreated: true } });
      return;
    }
    await applyUpload(event, db);
  },
};
