import { reactingTo } from "../core/event.ts";
import type { Worker } from "../core/worker.ts";
import { NotFoundError } from "../core/errors.ts";
import { uploadEventTypes, uploadIdOfStream, type UploadEvent } from "./events.ts";
import type { Uploads } from "./service.ts";

/**
 * The process manager of an upload's end. The request records the completion (after taking the task's
 * slot), and this worker carries it on across the other streams: it assembles the parts into the object
 * and creates the task named in the completion. An upload aborted or expired instead gives back the slot a
 * completion may have taken before it failed. Every step checks first (the object there, the task live,
 * the slot held), so a redelivery, or the request's own repeat, changes nothing.
 */
export function uploadCompletionWorker(uploads: Uploads): Worker<UploadEvent> {
  return {
    name: "upload-completion",
    subject: "scribe.upload.>",
    eventTypes: uploadEventTypes,
    async handle(event) {
      const uploadId = uploadIdOfStream(event.streamName);
      if (event.type === "UploadSigned" || uploadId === null) return;
      const metadata = reactingTo(event, "upload-completion");
      if (event.type !== "UploadCompleted") {
        await uploads.releaseSlot(event.data.userId, uploadId, metadata);
        return;
      }
      try {
        await uploads.finishRecorded(uploadId, metadata);
      } catch (error) {
        // The task was deleted before this ran (its client saw it and removed it): nothing left to do.
        if (!(error instanceof NotFoundError)) throw error;
      }
    },
  };
}
