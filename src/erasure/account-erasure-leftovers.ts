import type { Document, DocumentStore } from "../readmodels/port.ts";
import { idempotencyCollection } from "../http/idempotency-store.ts";

/**
 * Deletes every answer kept for the account's Idempotency-Key retries (src/http/idempotency-store.ts, up to 24 hours):
 * they hold what it sent and was answered (a webhook's URL and secret, a folder's name, a task's name and path).
 */
export async function forgetKeptAnswers(db: DocumentStore, userId: number): Promise<number> {
  return (await db.collection(idempotencyCollection).deleteMany({ userId })).deletedCount;
}

/**
 * Deletes the snapshots of `streams` (src/core/state-cache.ts: `<model>@<version>:<stream>` in the `snapshots`
 * collection): an account's holds its email, identities and checkout references, a task's its name, in the clear.
 * They are only shortcuts: a later command reads the stream from the start (and finds the account erased).
 */
export async function deleteSnapshots(db: DocumentStore, streams: ReadonlySet<string>): Promise<number> {
  const snapshots = db.collection<Document>("snapshots");
  let deleted = 0;
  for (const stream of streams) {
    // `$contains` finds `user-7`'s and `user-70`'s alike: only those that end with the stream's name are its.
    for (const { _id } of await snapshots.find({ _id: { $contains: `:${stream}` } })) {
      if (_id.endsWith(`:${stream}`)) deleted += (await snapshots.deleteOne({ _id })).deletedCount;
    }
  }
  return deleted;
}
