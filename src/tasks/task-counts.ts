import type { DocumentStore } from "../readmodels/port.ts";
import { taskStatuses, type TaskStatus } from "./events.ts";
import { compareAndSet, type ProjectedDocument } from "../core/projection.ts";

/**
 * The `task_counts` read model: one document per user with their tasks counted by status and by folder,
 * kept by the tasks projection as it changes tasks, so lists, folders and the queue never count rows.
 * Its `_position` is the last event that touched any of the user's tasks: the version of their task list.
 *
 * The counts are written before the tasks they count, with `changing` set to the event's position until the
 * tasks are written too. A reader that keeps what it read under that version (a response cache) must find
 * the same `_position` and no `changing` before and after reading the tasks; otherwise it read mid-change.
 */
export type TaskCountsFields = {
  userId: number;
  total: number;
  byStatus: Partial<Record<TaskStatus, number>>;
  /** By folder id; `none` for uncategorized tasks. */
  byFolder: Record<string, number>;
};
export type TaskCountsDocument = ProjectedDocument & TaskCountsFields & { changing?: number };

type Counted = { status: TaskStatus; folderId: number | null };

export const uncategorized = "none";
export const folderCountKey = (folderId: number | null) => (folderId === null ? uncategorized : String(folderId));

export function emptyCounts(userId: number): TaskCountsFields {
  return { userId, total: 0, byStatus: {}, byFolder: {} };
}

/** The counts after one task went from `before` to `after` (null: it did not exist, or no longer does). */
export function countTaskChange(counts: TaskCountsFields, before: Counted | null, after: Counted | null): TaskCountsFields {
  const next = { ...counts, byStatus: { ...counts.byStatus }, byFolder: { ...counts.byFolder } };
  const add = (task: Counted, n: number) => {
    next.total += n;
    next.byStatus[task.status] = (next.byStatus[task.status] ?? 0) + n;
    const key = folderCountKey(task.folderId);
    next.byFolder[key] = (next.byFolder[key] ?? 0) + n;
    if (next.byStatus[task.status] === 0) delete next.byStatus[task.status];
    if (next.byFolder[key] === 0) delete next.byFolder[key];
  };
  if (before) add(before, -1);
  if (after) add(after, 1);
  return next;
}

/** A deleted folder's tasks become uncategorized. */
export function countFolderDeleted(counts: TaskCountsFields, folderId: number): TaskCountsFields {
  const byFolder = { ...counts.byFolder };
  const moved = byFolder[String(folderId)] ?? 0;
  delete byFolder[String(folderId)];
  if (moved > 0) byFolder[uncategorized] = (byFolder[uncategorized] ?? 0) + moved;
  return { ...counts, byFolder };
}

/** The user's task counts; null before their first task. */
export function findTaskCounts(db: DocumentStore, userId: number): Promise<TaskCountsDocument | null> {
  return db.collection<TaskCountsDocument>("task_counts").findOne({ _id: String(userId) });
}

/**
 * Applies `change` to the user's counts at log `position`, once: the document remembers the last position
 * it took, so an event delivered again changes nothing. Marks them `changing` until `settleTaskCounts`.
 */
export async function updateTaskCounts(
  db: DocumentStore,
  userId: number,
  position: number,
  change: (counts: TaskCountsFields) => TaskCountsFields,
): Promise<void> {
  const id = String(userId);
  for (let attempt = 1; ; attempt++) {
    const current = await findTaskCounts(db, userId);
    if (current && current._position >= position) return;
    const { _id, _position, changing: _, ...fields } = current ?? { _id: id, _position: 0, changing: undefined, ...emptyCounts(userId) };
    const next: TaskCountsDocument = { ...change(fields), _id: id, _position: position, changing: position };
    if (await compareAndSet(db.collection<TaskCountsDocument>("task_counts"), id, current?._position ?? null, next)) return;
    if (attempt >= 10) throw new Error(`task_counts/${id}: still changing under event ${position} after ${attempt} attempts`);
  }
}

/** The tasks changed at `position` are written: the user's task list is whole again at that version. */
export async function settleTaskCounts(db: DocumentStore, userId: number, position: number): Promise<void> {
  await db.collection<TaskCountsDocument>("task_counts").updateOne({ _id: String(userId), changing: position }, { $unset: { changing: "" } });
}

/** The user's tasks by state, as the profile's `queue` shows them (GET /api/user). */
export async function queueCounts(db: DocumentStore, userId: number): Promise<{ pending_count: number; running_count: number; failed_count: number }> {
  const counts = (await findTaskCounts(db, userId))?.byStatus ?? {};
  return {
    pending_count: (counts.pending ?? 0) + (counts.waiting ?? 0),
    running_count: counts.scribing ?? 0,
    failed_count: counts.failed ?? 0,
  };
}

/** How many of the user's tasks each folder holds (null: uncategorized), and in all. */
export async function folderTaskCounts(db: DocumentStore, userId: number): Promise<{ inFolder(folderId: number | null): number; total: number }> {
  const counts = await findTaskCounts(db, userId);
  return { inFolder: (folderId) => counts?.byFolder[folderCountKey(folderId)] ?? 0, total: counts?.total ?? 0 };
}

/** Every user's tasks counted by status (the `scribe_tasks` gauge): one indexed count per status. */
export async function tasksByStatus(db: DocumentStore): Promise<Record<TaskStatus, number>> {
  const tasks = db.collection("tasks");
  const counts = await Promise.all(taskStatuses.map((status) => tasks.countDocuments({ status })));
  return Object.fromEntries(taskStatuses.map((status, i) => [status, counts[i]!])) as Record<TaskStatus, number>;
}
