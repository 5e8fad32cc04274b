import type { Document, DocumentStore } from "../readmodels/port.ts";
import { idempotencyCollection, type StoredAnswer } from "../http/idempotency-store.ts";

type KeptAnswer = Document & { userId: number; answer?: StoredAnswer };

/** Whether a kept answer's body is the task's view: `POST /api/tasks`'s (`{id, name, ...}`) or an upload's completion (`{task: {id, ...}}`). */
function namesTask(body: string, taskId: number): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== "object") return false;
  const answer = parsed as { id?: unknown; task?: { id?: unknown } | null };
  return answer.id === taskId || (typeof answer.task === "object" && answer.task?.id === taskId);
}

/**
 * Deletes the answers kept for Idempotency-Key retries (src/http/idempotency-store.ts, 24 hours) that show a deleted
 * task: they hold its name and path. A retry of that request after the deletion then runs afresh (and finds, or makes,
 * what is there now) instead of replaying the answer. Only the owner's records are read: a day's worth at most.
 */
export async function forgetKeptTaskAnswers(db: DocumentStore, userId: number, taskId: number): Promise<number> {
  const records = db.collection<KeptAnswer>(idempotencyCollection);
  let forgotten = 0;
  for (const record of await records.find({ userId })) {
    if (record.answer === undefined || !namesTask(record.answer.body, taskId)) continue;
    forgotten += (await records.deleteOne({ _id: record._id })).deletedCount;
  }
  return forgotten;
}
