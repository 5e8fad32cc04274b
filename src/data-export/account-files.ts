import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { taskDetail, taskListItem } from "../tasks/views.ts";
import { lightChunks } from "../exports/formats/index.ts";
import { timedSegments } from "../exports/document.ts";
import type { ArchiveEntry } from "./zip-stream.ts";
import { foldersOf, mediaKeysOf, tasksOf } from "./account-reads.ts";
import { mediaPath, taskFolder } from "./layout.ts";
import { readme } from "./readme.ts";

/** What an account's files are read from. */
export type AccountSource = { db: DocumentStore; blobs: BlobStore; tasks: Tasks };

const text = (path: string, content: string): ArchiveEntry => ({ path, content: [content], compress: true });
const json = (path: string, value: unknown): ArchiveEntry => text(path, `${JSON.stringify(value, null, 2)}\n`);

/**
 * Every file of an account's export, in the archive's order (README.txt says what each is), made one at a time as
 * the archive asks for the next: one task's transcript in memory at most, and media streamed from the blob store.
 * `profile` is the account as `GET /api/user` answers it.
 */
export async function* accountFiles(source: AccountSource, userId: number, profile: unknown, exportedAt: Date): AsyncGenerator<ArchiveEntry> {
  yield text("README.txt", readme(exportedAt));
  yield json("profile.json", profile);
  yield json("folders.json", await foldersOf(source.db, userId));
  // The list's rows, a few hundred bytes a task, written last: the one thing kept across tasks.
  const index: unknown[] = [];
  for await (const task of tasksOf(source.db, userId)) {
    const folder = taskFolder(task);
    yield* taskFiles(source, task, folder);
    index.push({ ...taskListItem(task), archive_folder: folder });
  }
  yield json("tasks.json", index);
}

/**
 * One task's files. Each is what the API answers for it: task.json the detail (`GET /api/tasks/{id}`), transcript.json
 * and transcript.srt the exports (`GET /api/tasks/{id}/download/{json,srt}`, made by the same formats with the same
 * defaults: the media's length bounds the last cue), the media what `GET /api/tasks/{id}/audio` serves.
 */
async function* taskFiles(source: AccountSource, task: TaskDocument, folder: string): AsyncGenerator<ArchiveEntry> {
  const transcript = await source.tasks.transcript(task.id);
  yield json(`${folder}/task.json`, taskDetail(task, transcript));
  const segments = transcript?.segments;
  if (segments && segments.length > 0) {
    const timed = timedSegments(segments);
    yield { path: `${folder}/transcript.json`, content: lightChunks("json", timed), compress: true };
    yield { path: `${folder}/transcript.srt`, content: lightChunks("srt", timed, { mediaEndMs: task.duration * 1000 }), compress: true };
  }
  if (transcript?.summary) yield text(`${folder}/summary.txt`, transcript.summary);
  if (transcript?.mindmap) yield text(`${folder}/mindmap.md`, transcript.mindmap);
  for (const [index, key] of (await mediaKeysOf(source.tasks, task)).entries()) {
    // Opened only now, when the archive is ready to write it; a file gone meanwhile (the task deleted) is left out.
    const media = await source.blobs.get(key);
    if (media) yield { path: mediaPath(folder, key, index), content: { stream: media.body, size: media.size }, compress: false };
  }
}
