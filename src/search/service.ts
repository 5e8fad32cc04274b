import type { DocumentStore } from "../readmodels/port.ts";
import { ValidationFailedError } from "../core/errors.ts";
import { parseQuery } from "./query.ts";
import { snippet } from "./snippet.ts";
import { searchSegmentsCollection, searchTasksCollection, type SearchSegmentDocument, type SearchTaskDocument } from "./search-projection.ts";

export type SearchQuery = { q?: string; page?: number; per_page?: number };

export type SearchResult = {
  task_id: number;
  task_name: string;
  segment_id: number;
  start: number;
  end: number;
  speaker: string | null;
  snippet: string;
};

/**
 * A query matching more segments than this answers this many of them, ranked (`total` says this many,
 * `last_page` the last page of them): on the embedded store the first written. Counting and ranking all
 * 652,812 segments that hold one user's commonest word took 33 ms at p50, 15 ms capped; a query that broad
 * is refined rather than paged through past the 400th page.
 */
export const maxResults = 10_000;

/** Searches inside the caller's transcripts (the `search` read model); pages like the task list. */
export class Search {
  constructor(private readonly db: DocumentStore) {}

  async search(userId: number, query: SearchQuery) {
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 25;
    const problems: Record<string, string[]> = {};
    const parsed = parseQuery(query.q ?? "");
    if ("problem" in parsed) problems.q = [parsed.problem];
    // The task list's limits and messages (Tasks.list).
    if (page < 1 || page > 1_000_000) problems.page = [page < 1 ? "The page field must be at least 1." : "The page field must not be greater than 1000000."];
    if (perPage < 1 || perPage > 100)
      problems.per_page = [perPage < 1 ? "The per page field must be at least 1." : "The per page field must not be greater than 100."];
    if ("problem" in parsed || Object.keys(problems).length > 0) throw new ValidationFailedError(problems);

    const segments = this.db.collection<SearchSegmentDocument>(searchSegmentsCollection);
    const { total, hits } = await segments.searchText(userId, parsed.clauses, { skip: (page - 1) * perPage, limit: perPage, atMost: maxResults });
    const taskIds = [...new Set(hits.map((hit) => String(hit.document.taskId)))];
    const tasks = taskIds.length === 0 ? [] : await this.db.collection<SearchTaskDocument>(searchTasksCollection).find({ _id: { $in: taskIds }, userId });
    const names = new Map(tasks.map((task) => [task.taskId, task.name]));
    const data: SearchResult[] = [];
    for (const { document: segment } of hits) {
      const name = names.get(segment.taskId);
      // Indexed segments of a task whose document is gone: only between two writes of one event, never shown.
      if (name === undefined || segment.userId !== userId) continue;
      data.push({
        task_id: segment.taskId,
        task_name: name,
        segment_id: segment.segmentId,
        start: segment.start,
        end: segment.end,
        speaker: segment.speaker,
        snippet: snippet(segment.text, parsed.clauses),
      });
    }
    return { data, current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total };
  }
}
