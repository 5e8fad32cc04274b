import { VersionedCache, jsonResponse, type ResponseSet } from "../http/versioned-cache.ts";
import type { Tasks } from "./service.ts";
import { taskDetail, taskListItem } from "./views.ts";
import { revisionTag } from "../http/if-match.ts";
import { defaultShape, type DetailShape } from "./detail-include.ts";

const utf8 = new TextEncoder();
const utf8Json = (body: unknown): Uint8Array => utf8.encode(JSON.stringify(body));

type ListQuery = Parameters<Tasks["list"]>[1];
type ListBody = Awaited<ReturnType<CachedTaskReads["freshList"]>>;
type DetailBody = ReturnType<typeof taskDetail>;

// Enough for thousands of pages; what falls out is only read again.
const cacheBytes = 64 * 1024 * 1024;

/**
 * The task list and detail, kept serialized under the version of what they were read from: a user's list
 * under their task counts' position (any change to any of their tasks moves it), a detail under the
 * task's own position. A fresh answer goes out as an object, so Elysia still checks it against the
 * route's schema; a kept one goes out as the JSON that object made.
 */
export class CachedTaskReads {
  private readonly cache = new VersionedCache(cacheBytes);

  constructor(private readonly tasks: Tasks) {}

  async list(userId: number, query: ListQuery, set: ResponseSet): Promise<ListBody | Response> {
    const filters = JSON.stringify([query.folder ?? null, query.search ?? null]);
    const key = `list:${userId}:${query.status ?? "all"}:${query.page ?? 1}:${query.per_page ?? 25}:${filters}`;
    const version = await this.tasks.listVersion(userId);
    const kept = version === null ? undefined : this.cache.get(key, version);
    if (kept !== undefined) return jsonResponse(kept, set);
    const body = await this.freshList(userId, query);
    // Kept only when no change to the user's tasks began or ended while they were read.
    if (version !== null && (await this.tasks.listVersion(userId)) === version) this.cache.set(key, version, utf8Json(body));
    return body;
  }

  /**
   * The task's version goes out as its ETag, from the same document as the body: never a version newer than what
   * the body shows (a change made on it would overwrite what the reader never saw). The transcript, read after,
   * may be newer than the version; a change made on it is then refused (412) and read again, never lost.
   * `shape`: what the answer shows beyond the spec's (`include=words`); each shape is kept under its own key, so an
   * answer with words is never served for one without, nor the other way round. Both carry the same ETag: it names
   * the task's version, which If-Match compares, and the two are different URLs to any HTTP cache.
   */
  async detail(userId: number, taskId: number, set: ResponseSet, shape: DetailShape = defaultShape): Promise<DetailBody | Response> {
    const task = await this.tasks.owned(userId, taskId);
    // Documents from before tasks carried their revision have no version until the projection is rebuilt.
    if (typeof task.revision === "number") set.headers.etag = revisionTag(task.revision);
    const key = shape.words ? `task:${taskId}:words` : `task:${taskId}`;
    const kept = this.cache.get(key, task._position);
    if (kept !== undefined) return jsonResponse(kept, set);
    // The projection writes a task's transcript before the task itself, so this transcript is at least
    // as new as the task read above: never older data under the task's position.
    const body = taskDetail(task, await this.tasks.transcript(taskId), shape);
    this.cache.set(key, task._position, utf8Json(body));
    return body;
  }

  private async freshList(userId: number, query: ListQuery) {
    const page = await this.tasks.list(userId, query);
    return { ...page, data: page.data.map(taskListItem) };
  }
}
