import { ValidationFailedError } from "../core/errors.ts";
import type { DocumentStore, Filter } from "../readmodels/port.ts";
import type { FolderDocument } from "../folders/folders-projection.ts";
import { folderKey, uncategorized } from "../folders/name.ts";
import { findTaskCounts, folderCountKey, type TaskCountsDocument } from "./task-counts.ts";
import type { TaskDocument } from "./tasks-projection.ts";

/** What `GET /api/tasks` filters and pages by. */
export type TaskListQuery = { status?: string; search?: string; folder?: string; page?: number; per_page?: number };

/** The user's folder of that name (names compare as folders-projection keys them); 422 on `folder` when there is none. */
export async function existingFolder(db: DocumentStore, userId: number, name: string): Promise<FolderDocument> {
  const folders = await db.collection<FolderDocument>("folders").find({ userId });
  const key = folderKey(name);
  const folder = folders.find((f) => folderKey(f.name) === key);
  if (!folder) throw new ValidationFailedError({ folder: ["The selected folder does not exist."] });
  return folder;
}

/** One page of the user's tasks, newest first, with the counts the page links need. */
export async function listTasks(db: DocumentStore, userId: number, query: TaskListQuery) {
  const filter: Filter = { userId };
  if (query.status && query.status !== "all") filter.status = query.status;
  if (query.search) filter.nameKey = { $contains: query.search.toLowerCase() };
  if (query.folder !== undefined) {
    if (query.folder === uncategorized) filter.folderId = null;
    else filter.folderId = (await existingFolder(db, userId, query.folder)).id;
  }
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 25;
  const problems: Record<string, string[]> = {};
  if (page < 1 || page > 1_000_000) problems.page = [page < 1 ? "The page field must be at least 1." : "The page field must not be greater than 1000000."];
  if (perPage < 1 || perPage > 100)
    problems.per_page = [perPage < 1 ? "The per page field must be at least 1." : "The per page field must not be greater than 100."];
  if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
  const [total, data] = await Promise.all([
    countTasks(db, userId, filter),
    db.collection<TaskDocument>("tasks").find(filter, { sort: { id: -1 }, skip: (page - 1) * perPage, limit: perPage }),
  ]);
  return { data, current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total };
}

/** How many tasks a list filter matches: from the user's counts where they have it, else counted. */
async function countTasks(db: DocumentStore, userId: number, filter: Filter): Promise<number> {
  const byStatus = filter.status !== undefined;
  const byFolder = filter.folderId !== undefined;
  if (filter.nameKey !== undefined || (byStatus && byFolder)) return db.collection<TaskDocument>("tasks").countDocuments(filter);
  const counts = await findTaskCounts(db, userId);
  if (counts === null) return 0;
  if (byStatus) return counts.byStatus[filter.status as keyof TaskCountsDocument["byStatus"]] ?? 0;
  if (byFolder) return counts.byFolder[folderCountKey(filter.folderId as number | null)] ?? 0;
  return counts.total;
}
