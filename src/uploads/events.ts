import type { RecordedChoice } from "../tasks/recognition-choice.ts";
import { streamId } from "../core/event.ts";
/**
 * An upload session, on its stream `upload-<uploadId>`: signed, then completed (which names the task
 * it creates), aborted by its owner, or expired unfinished.
 */
export type UploadSession = {
  uploadId: string;
  userId: number;
  /** The blob key the parts are assembled into (the task's `path`). */
  key: string;
  /** The blob store's own multipart upload id. */
  storageUploadId: string;
  fileName: string;
  contentType: string;
  size: number;
  duration: number | null;
  partSize: number;
  partCount: number;
  signedAt: string;
  expiresAt: string;
};

export type UploadEvent =
  | { type: "UploadSigned"; data: UploadSession }
  /**
   * Recorded before the object is assembled and the task created, so a repeated complete (or one
   * after a crash) finishes the same work with the same task id instead of making a second task.
   */
  | {
      type: "UploadCompleted";
      data: {
        userId: number;
        taskId: number;
        name: string;
        file: string;
        duration: number | null;
        speakerDiarization: boolean;
        completedAt: string;
      } & RecordedChoice;
    }
  | { type: "UploadAborted"; data: { userId: number; abortedAt: string } }
  | { type: "UploadExpired"; data: { userId: number; expiredAt: string } };

export const uploadEventTypes: readonly UploadEvent["type"][] = ["UploadSigned", "UploadCompleted", "UploadAborted", "UploadExpired"];

export const uploadStream = (uploadId: string) => `upload-${uploadId}`;

export const uploadIdOfStream = (streamName: string): string | null => streamId(streamName, "upload");

/** Our upload ids: 128 random bits in hex. Anything else is no upload of ours. */
export const uploadIdPattern = /^[0-9a-f]{32}$/;

/** Spec 8: the largest file, on sign and complete. */
export const maxUploadBytes = 2_147_483_648;

/** How long a signed session stays open: parts can be sent and the upload completed until then. */
export const uploadSessionSeconds = 24 * 60 * 60;

/** How long one signed part URL is valid (never past the session's expiry). */
export const partUrlSeconds = 60 * 60;
