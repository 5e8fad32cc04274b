import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { TestApp } from "./test-app.ts";
import type { RecordedEvent } from "../../src/core/event.ts";
import { taskIdOfStream, type TaskEvent } from "../../src/tasks/events.ts";
import { uploadIdOfStream, type UploadEvent } from "../../src/uploads/events.ts";

/**
 * Whether deleting really deleted (DESIGN.md, "Personal data in an immutable log"): every blob under the
 * prefixes that hold a task's personal content must be named by a task that still exists. What counts as
 * named is read from the event log, the source of truth, never from what a test believes it created, so a
 * blob a worker forgot (or wrote after the task was deleted) is found wherever it came from.
 */

/** Transcripts, heavy exports, uploaded and fetched media, and the chunk results of a recognition in progress. */
export const taskBlobPrefixes = ["transcripts/", "exports/", "uploads/", "media/", "work/recognition/"] as const;

type TaskFacts = { deleted: boolean; keys: Set<string> };
type UploadFacts = { key: string; ended: boolean; taskId: number | null };

/** Every blob key under `prefixes` in the test app's embedded store: files under DATA_DIR/blobs, less the store's own `~` names. */
export async function blobKeys(app: TestApp, prefixes: readonly string[] = taskBlobPrefixes): Promise<string[]> {
  if (app.config.s3) throw new Error("blobKeys lists the embedded blob store's files; this test app stores blobs on S3");
  const root = join(app.config.dataDir, "blobs");
  const keys: string[] = [];
  const walk = async (dir: string, prefix: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return []; // nothing stored under it yet, or removed while we walked
      throw error;
    });
    for (const entry of entries) {
      if (entry.name.includes("~")) continue; // sidecars, writes in progress, multipart parts: never a key
      const key = `${prefix}${entry.name}`;
      if (entry.isDirectory()) await walk(join(dir, entry.name), `${key}/`);
      else if (prefixes.some((p) => key.startsWith(p))) keys.push(key);
    }
  };
  await walk(root, "");
  return keys.sort();
}

/** The whole log, a page at a time. */
async function allEvents(app: TestApp): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (let after: number | undefined; ; ) {
    const page = await app.adapters.eventStore.readAll({ after, limit: 1000 });
    events.push(...page);
    if (page.length < 1000) return events;
    after = page[page.length - 1]!.position;
  }
}

function foldLog(events: readonly RecordedEvent[]) {
  const tasks = new Map<number, TaskFacts>();
  const uploads = new Map<string, UploadFacts>();
  for (const recorded of events) {
    const taskId = taskIdOfStream(recorded.streamName);
    if (taskId !== null) {
      const facts = tasks.get(taskId) ?? { deleted: false, keys: new Set<string>() };
      tasks.set(taskId, facts);
      const event = recorded as unknown as TaskEvent;
      if (event.type === "TaskDeleted") facts.deleted = true;
      if (event.type === "TaskCreated" && event.data.disk === "objstore") facts.keys.add(event.data.path);
      if (event.type === "MediaFetched") facts.keys.add(event.data.path);
      if (event.type === "ExportGenerated") facts.keys.add(event.data.key);
      if (event.type === "TaskCreated" || event.type === "TranscriptEdited" || event.type === "TaskFinished") {
        const key = event.data.transcript?.key;
        if (key) facts.keys.add(key);
      }
      continue;
    }
    const uploadId = uploadIdOfStream(recorded.streamName);
    if (uploadId === null) continue;
    const event = recorded as unknown as UploadEvent;
    if (event.type === "UploadSigned") uploads.set(uploadId, { key: event.data.key, ended: false, taskId: null });
    const upload = uploads.get(uploadId);
    if (!upload) continue;
    if (event.type === "UploadCompleted") upload.taskId = event.data.taskId;
    if (event.type === "UploadAborted" || event.type === "UploadExpired") upload.ended = true;
  }
  return { tasks, uploads };
}

/** A key's task, where its layout names one (`exports/<id>/`, `transcripts/task-<id>/`, `media/<user>/<id>-…`, `work/recognition/<id>-<attempt>/`). */
function taskOfKey(key: string): number | null {
  const match = /^(?:exports\/(\d+)\/|transcripts\/task-(\d+)\/|media\/\d+\/(\d+)-|work\/recognition\/(\d+)-)/.exec(key);
  const id = match?.slice(1).find((group) => group !== undefined);
  return id === undefined ? null : Number(id);
}

/**
 * Blobs under `taskBlobPrefixes` that no live (not deleted) task names, each as `key (why)`. Named means: in an
 * event of the task's stream (its upload, fetched media, transcripts, exports), or, for chunk results, under the
 * task's own id while the task lives; an upload's object also counts while its upload has not yet become a task.
 */
export async function unreferencedBlobs(app: TestApp): Promise<string[]> {
  // The blobs first, then the log: a blob written after its event is then never taken for an orphan.
  const keys = await blobKeys(app);
  const { tasks, uploads } = foldLog(await allEvents(app));
  const named = new Set<string>();
  const namedByDeleted = new Map<string, number[]>();
  for (const [taskId, facts] of tasks) {
    for (const key of facts.keys) {
      if (!facts.deleted) named.add(key);
      else namedByDeleted.set(key, [...(namedByDeleted.get(key) ?? []), taskId]);
    }
  }
  for (const upload of uploads.values()) {
    // Completed and not yet created: the completion's process manager is still making the task.
    if (!upload.ended && (upload.taskId === null || !tasks.has(upload.taskId))) named.add(upload.key);
  }
  const orphans: string[] = [];
  for (const key of keys) {
    if (named.has(key)) continue;
    const taskId = taskOfKey(key);
    const task = taskId === null ? undefined : tasks.get(taskId);
    if (key.startsWith("work/recognition/") && task && !task.deleted) continue;
    const deletedNamers = namedByDeleted.get(key);
    const why = deletedNamers
      ? `named only by deleted task ${deletedNamers.join(", ")}`
      : taskId === null
        ? "named by no task"
        : !task
          ? `task ${taskId} does not exist`
          : task.deleted
            ? `task ${taskId} is deleted`
            : `task ${taskId} does not name it`;
    orphans.push(`${key} (${why})`);
  }
  return orphans;
}

/**
 * Fails naming every blob that no live task references, once it has waited `timeoutMs` for them to go: a deleted
 * task's blobs are removed by workers reacting to TaskDeleted, after the delete has answered.
 */
export async function expectNoOrphanBlobs(app: TestApp, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const orphans = await unreferencedBlobs(app);
    if (orphans.length === 0) return;
    if (Date.now() > deadline) {
      throw new Error(`${orphans.length} blob(s) no live task references, after ${timeoutMs} ms:\n  ${orphans.join("\n  ")}`);
    }
    await Bun.sleep(50);
  }
}
