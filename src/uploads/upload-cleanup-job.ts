import { bySystem } from "../core/event.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { Uploads } from "./service.ts";
import { uploadSessionSeconds } from "./events.ts";
import type { UploadDocument } from "./uploads-projection.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import { logger } from "../logging/logger.ts";

const log = logger("uploads");

/** A recorded completion whose task is still missing this long after is finished by the job. */
const stalledAfterMs = 10 * 60_000;

export type UploadCleanupResult = { expired: number; finished: number };

/**
 * Expires the upload sessions past their expiry (UploadExpired, then the parts are discarded), and
 * finishes completions whose request died between recording them and creating the task. Every step is
 * a command that appends nothing when it is not due, so several workers running this are harmless.
 */
export async function cleanUpUploads(uploads: Uploads, db: DocumentStore, now: Date, blobs: BlobStore | null = null): Promise<UploadCleanupResult> {
  const collection = db.collection<UploadDocument>("uploads");
  const metadata = (what: string) => bySystem("upload-cleanup", `upload-cleanup-${what}-${now.toISOString()}`);
  let expired = 0;
  for (const upload of await collection.find({ status: "open", expiresAt: { $lte: now.toISOString() } }, { limit: 1000 })) {
    if (await uploads.expire(upload.uploadId, now, metadata("expire"))) expired++;
  }
  let finished = 0;
  const stalledBefore = new Date(now.getTime() - stalledAfterMs).toISOString();
  for (const upload of await collection.find({ status: "completed", taskCreated: false, completedAt: { $lt: stalledBefore } }, { limit: 100 })) {
    try {
      if (await uploads.finishRecorded(upload.uploadId, metadata("finish"))) finished++;
    } catch (error) {
      log.warn({ uploadId: upload.uploadId, err: error }, "a recorded completion could not be finished; the next run tries again");
    }
  }
  // Multipart uploads no session knows of (a sign that died before recording it), on stores that keep them.
  await blobs?.sweepAbandonedUploads?.((uploadSessionSeconds + 3600) * 1000, now.getTime());
  return { expired, finished };
}

/** Runs the cleanup every few minutes in the workers role. */
export function startUploadCleanupJob(uploads: Uploads, db: DocumentStore, blobs: BlobStore, everyMs = 5 * 60_000): PeriodicJob {
  return startPeriodicJob(
    "upload cleanup job",
    async () => {
      await cleanUpUploads(uploads, db, new Date(), blobs);
    },
    { everyMs, firstAfterMs: 2000, across: db },
  );
}
