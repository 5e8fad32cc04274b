import { api, call, type components } from "../api.ts";
import type { paths } from "../../../../clients/typescript/client.ts";

type Task = components["schemas"]["Task"];
type TaskPatch = paths["/api/tasks/{id}"]["patch"]["requestBody"]["content"]["application/json"];

/**
 * The version each task object was read at: the ETag of the answer that brought it, kept beside the object
 * (never a version from another answer, which could be newer than the text the object shows).
 */
const versions = new WeakMap<object, string>();

/** The version `task` was read at, for `If-Match`; null when unknown (an object not read through here). */
export function versionOf(task: object): string | null {
  return versions.get(task) ?? null;
}

/**
 * A proxy that compresses an answer may weaken its ETag (`W/"7"`, as nginx's gzip does), and If-Match compares
 * strongly, so a weak tag would never match: the version is the tag's opaque part, which the server made strong.
 */
function remember(task: Task, response: Response): Task {
  const etag = response.headers.get("etag");
  if (etag !== null) versions.set(task, etag.replace(/^W\//, ""));
  return task;
}

/**
 * Every read and save of a task asks for its segments' timed words (`include=words`), so that each answer the page
 * adopts shows them: one without them would take them off the transcript until the next reload.
 */
const withWords = { include: "words" };

/** `GET /api/tasks/{id}?include=words`, with the version it answered (versionOf). */
export async function fetchTask(id: number): Promise<Task> {
  const pending = api.GET("/api/tasks/{id}", { params: { path: { id }, query: withWords } });
  const task = await call(pending);
  return remember(task, (await pending).response);
}

/**
 * `PATCH /api/tasks/{id}` made on `version` (If-Match): refused with 412 when the task changed since. Without a
 * version the change is made whatever the task's version. The answer carries the new version.
 */
export async function saveTask(id: number, body: TaskPatch, version: string | null): Promise<Task> {
  const pending = api.PATCH("/api/tasks/{id}", { params: { path: { id }, query: withWords, header: version === null ? {} : { "If-Match": version } }, body });
  const task = await call(pending);
  return remember(task, (await pending).response);
}
