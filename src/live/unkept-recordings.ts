/**
 * A live session's recording is stored before its task is created (an event only ever names a blob that exists);
 * a process that dies between the two leaves a blob no task names, which deleting the account's tasks would never
 * remove. So each recording is noted here before it is stored and forgotten once its task is created; the sweep
 * deletes the blobs of notes left behind.
 */
import type { BlobStore } from "../blobs/port.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import type { Document, DocumentStore } from "../readmodels/port.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { logger } from "../logging/logger.ts";

const log = logger("live");

/** A recording being kept: its blob key, whose account, since when (ms since the epoch). */
type RecordingNote = Document & { userId: number; notedAt: number };

/**
 * A note this old belongs to a keep that died: a keep takes seconds, and by then the read models show a task that
 * was created (the sweep looks there for one naming the key before it deletes anything).
 */
export const unkeptAfterMs = 60 * 60_000;

const notes = (db: DocumentStore) => db.collection<RecordingNote>("live_recordings");

export async function noteRecording(db: DocumentStore, key: string, userId: number, now = Date.now()): Promise<void> {
  await notes(db).replaceOne({ _id: key }, { _id: key, userId, notedAt: now }, { upsert: true });
}

export async function forgetRecording(db: DocumentStore, key: string): Promise<void> {
  await notes(db).deleteOne({ _id: key });
}

/** Deletes the recordings whose keep died before their task was created; says how many. Safe to run in several processes. */
export async function sweepUnkeptRecordings(db: DocumentStore, blobs: BlobStore, now = Date.now()): Promise<number> {
  let swept = 0;
  for (const note of await notes(db).find({ notedAt: { $lt: now - unkeptAfterMs } }, { limit: 100 })) {
    const task = await db.collection<TaskDocument>("tasks").findOne({ userId: note.userId, path: note._id });
    if (!task) {
      await blobs.delete(note._id);
      swept++;
    }
    await forgetRecording(db, note._id);
  }
  if (swept > 0) log.warn({ swept }, "deleted live recordings whose task was never created");
  return swept;
}

/** The sweep every 10 minutes in the workers role, once across processes (a lease on the document store). */
export function startUnkeptRecordingsJob(db: DocumentStore, blobs: BlobStore, everyMs = 10 * 60_000): PeriodicJob {
  return startPeriodicJob(
    "live recordings sweep",
    async () => {
      await sweepUnkeptRecordings(db, blobs);
    },
    { everyMs, firstAfterMs: 5000, across: db },
  );
}
