import type { Recorded } from "../core/event.ts";
import type { Projection, ProjectedDocument } from "../core/projection.ts";
import { positionGuarded } from "../core/projection.ts";
import { uploadEventTypes, uploadIdOfStream, type UploadEvent } from "./events.ts";
import type { TaskEvent } from "../tasks/events.ts";
import { userIdOf, type UserEvent } from "../accounts/events.ts";
import { erasedText } from "../erasure/personal-fields.ts";

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

type UploadsEvent = UploadEvent | Extract<TaskEvent, { type: "TaskCreated" | "TaskDeleted" }> | Extract<UserEvent, { type: "AccountErased" }>;

export const uploadsProjection: Projection<UploadsEvent> = {
  name: "uploads",
  // 2: a deleted task's upload leaves with it, an erased account's uploads with the account (their keys name the files).
  version: 2,
  collections: ["uploads"],
  eventTypes: [...uploadEventTypes, "TaskCreated", "TaskDeleted", "AccountErased"],
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
    if (event.type === "TaskDeleted") {
      // Its session is done with (the cleanup job looks at open ones and completions whose task never came), and its
      // key holds the file's name: deleting the task deletes it (DESIGN.md, "Personal data in an immutable log").
      await db.collection<UploadDocument>("uploads").deleteMany({ taskId: event.data.taskId, status: "completed" });
      return;
    }
    if (event.type === "AccountErased") {
      // Ended sessions go. An open one stays for the cleanup job to expire (and so end its session), without the
      // file's name; a redelivery changes nothing.
      const userId = userIdOf(event);
      if (userId === null) return;
      const uploads = db.collection<UploadDocument>("uploads");
      await uploads.deleteMany({ userId, status: { $in: ["completed", "aborted", "expired"] } });
      await uploads.updateMany({ userId, status: "open" }, { $set: { key: erasedText } });
      return;
    }
    await applyUpload(event, db);
  },
};
