import type { Recorded } from "../core/event.ts";
import { compareAndSet, positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { taskEventTypes, taskIdOfStream, type Disk, type TaskEvent, type TaskOrigin, type TaskStatus } from "./events.ts";
import type { FolderEvent } from "../folders/events.ts";
import { userIdOf } from "../accounts/events.ts";
import { exportVersion } from "./export-version.ts";
import { hasTranscript } from "./transcripts.ts";
import { countFolderDeleted, countTaskChange, settleTaskCounts, updateTaskCounts } from "./task-counts.ts";
import { evolveTranscript, type TranscriptFields } from "./transcripts-read-model.ts";
import type { RecordedChoice } from "./recognition-choice.ts";

/** The `tasks` read model: what lists and details show, without the transcript (kept in `transcripts`). */
export type TaskFields = {
  id: number;
  userId: number;
  name: string;
  /** Lower-cased name, for case-insensitive search. */
  nameKey: string;
  file: string | null;
  path: string;
  disk: Disk;
  size: number | null;
  duration: number;
  cost: number | null;
  status: TaskStatus;
  attempts: number;
  quality: number | null;
  index: number | null;
  folderId: number | null;
  folder: string | null;
  url: string | null;
  speakerDiarization: boolean;
  shared: boolean;
  /** The engine, language and vocabulary the task asked for (recognition-choice.ts), only those it asked: none on older tasks. */
  engine?: RecordedChoice["engine"];
  language?: RecordedChoice["language"];
  vocabulary?: RecordedChoice["vocabulary"];
  /** `live`: the task is a live session's recording (TaskCreated's `origin`); absent for a file or link. */
  origin?: TaskOrigin;
  failureReason: string | null;
  hasTranscript: boolean;
  exportVersion: string;
  createdAt: string;
  updatedAt: string;
  /**
   * The revision of the task's stream this document shows (its last event's but bookkeeping, task-state.ts
   * bookkeepingEvents): the task's version, which `GET /api/tasks/{id}` answers as its ETag and `If-Match` names. Folder renames reach the document
   * from the account's stream and leave it as it is: they change no task's own record.
   */
  revision: number;
};
export type TaskDocument = ProjectedDocument & TaskFields;

// The `transcripts` read model's documents and evolve, kept beside the tasks' in this projection.
export { evolveTranscript, type TranscriptDocument, type TranscriptFields } from "./transcripts-read-model.ts";

type TaskCreated = Recorded<Extract<TaskEvent, { type: "TaskCreated" }>>;

/** A new task's document, as its TaskCreated describes it. */
function createdTask(event: TaskCreated): TaskFields {
  const { data: d, time } = event;
  return {
    id: d.taskId,
    userId: d.userId,
    name: d.name,
    nameKey: d.name.toLowerCase(),
    file: d.file,
    path: d.path,
    disk: d.disk,
    size: d.size,
    duration: d.duration ?? 0,
    cost: d.cost,
    status: "pending",
    attempts: 1,
    quality: null,
    index: null,
    folderId: null,
    folder: null,
    url: d.url,
    speakerDiarization: d.speakerDiarization,
    shared: false,
    ...(d.engine !== undefined ? { engine: d.engine } : {}),
    ...(d.language !== undefined ? { language: d.language } : {}),
    ...(d.vocabulary !== undefined ? { vocabulary: d.vocabulary } : {}),
    ...(d.origin !== undefined ? { origin: d.origin } : {}),
    failureReason: null,
    hasTranscript: hasTranscript(d),
    exportVersion: exportVersion(time, null),
    createdAt: d.createdAt,
    updatedAt: time,
    revision: event.revision,
  };
}

export function evolveTask(doc: TaskFields | null, event: Recorded<TaskEvent>): TaskFields | null {
  if (event.type === "TaskCreated") return createdTask(event);
  if (doc === null) return null;
  const time = event.time;
  const next = { ...doc, updatedAt: time, revision: event.revision };
  switch (event.type) {
    case "TaskRenamed":
      return { ...next, name: event.data.name, nameKey: event.data.name.toLowerCase() };
    case "TaskMoved":
      return { ...next, folderId: event.data.folder?.id ?? null, folder: event.data.folder?.name ?? null };
    case "TranscriptEdited":
      return { ...next, hasTranscript: true, exportVersion: exportVersion(time, doc.exportVersion) };
    case "TaskDetailsCorrected": {
      const { duration, cost, index } = event.data;
      return { ...next, duration: duration ?? doc.duration, cost: cost ?? doc.cost, index: index ?? doc.index };
    }
    case "TaskRated":
      return { ...next, quality: event.data.quality };
    case "TaskShared":
      return { ...next, shared: true };
    case "TaskUnshared":
      return { ...next, shared: false };
    case "TaskDeleted":
      return null;
    case "TaskRetried":
      return { ...next, status: event.data.status, attempts: event.data.attempt, failureReason: null };
    case "MediaFetchStarted":
      return { ...next, status: "waiting" };
    case "MediaFetched":
      return { ...next, status: "pending", size: event.data.size, file: doc.file ?? event.data.file };
    case "TranscriptionStarted":
      return { ...next, status: "scribing" };
    case "SummaryRefreshed":
    case "SummaryFailed":
      // Nothing the list shows, but the detail shows the summary: the version moves.
      return { ...doc, revision: event.revision };
    case "ExportGenerated":
    case "ExportRequested":
    case "TaskRequeued":
      // Bookkeeping (bookkeepingEvents): nothing the task shows changes, nor its version.
      return doc;
    case "TaskFinished": {
      const d = event.data;
      return {
        ...next,
        status: "finished",
        duration: d.duration ?? doc.duration,
        cost: d.cost ?? doc.cost,
        quality: d.quality ?? doc.quality,
        hasTranscript: doc.hasTranscript || hasTranscript(d),
        exportVersion: hasTranscript(d) ? exportVersion(time, doc.exportVersion) : doc.exportVersion,
      };
    }
    case "TaskFailed":
      return { ...next, status: "failed", failureReason: event.data.reason };
  }
}

type TasksEvent = TaskEvent | Extract<FolderEvent, { type: "FolderRenamed" | "FolderDeleted" }>;

const taskId = (event: Recorded<TasksEvent>) => taskIdOfStream(event.streamName)?.toString() ?? null;
const applyTranscript = positionGuarded<TranscriptFields, TaskEvent>({ collection: "transcripts", documentId: taskId, evolve: evolveTranscript });

/**
 * positionGuarded's scheme, and counts the change in the owner's `task_counts` first (see task-counts.ts):
 * a crash between the writes leaves the task as it was, so the event arriving again recounts the same
 * change, which the counts (guarded by their own position) then skip.
 */
async function applyTask(event: Recorded<TaskEvent>, db: DocumentStore): Promise<void> {
  const id = taskId(event);
  if (id === null) return;
  const tasks = db.collection<TaskDocument>("tasks");
  for (let attempt = 1; ; attempt++) {
    const current = await tasks.findOne({ _id: id });
    if (current && current._position >= event.position) {
      // Delivered again: a crash may have come between writing the task and settling its counts.
      await settleTaskCounts(db, current.userId, event.position);
      return;
    }
    const next = evolveTask(current, event);
    const userId = next?.userId ?? current?.userId;
    if (userId === undefined) return;
    await updateTaskCounts(db, userId, event.position, (counts) => countTaskChange(counts, current, next));
    if (await compareAndSet(tasks, id, current?._position ?? null, next && { ...next, _id: id, _position: event.position })) {
      await settleTaskCounts(db, userId, event.position);
      return;
    }
    if (attempt >= 10) throw new Error(`tasks/${id}: still changing under event ${event.position} after ${attempt} attempts`);
  }
}

/** Folder renames and deletions reach every task in the folder that has not seen this event (matched below its position). */
async function applyFolderEvent(event: Recorded<Exclude<TasksEvent, TaskEvent>>, db: DocumentStore): Promise<void> {
  const userId = userIdOf(event);
  const tasks = db.collection<TaskDocument>("tasks");
  if (userId === null) return;
  const { folderId } = event.data;
  if (event.type === "FolderRenamed") {
    await updateTaskCounts(db, userId, event.position, (counts) => counts);
    // The new _position tells a response cache keyed by it that these tasks changed.
    await tasks.updateMany({ userId, folderId, _position: { $lt: event.position } }, { $set: { folder: event.data.name, _position: event.position } });
  } else {
    await updateTaskCounts(db, userId, event.position, (counts) => countFolderDeleted(counts, folderId));
    await tasks.updateMany({ userId, folderId, _position: { $lt: event.position } }, { $set: { folder: null, folderId: null, _position: event.position } });
  }
  await settleTaskCounts(db, userId, event.position);
}

export const tasksProjection: Projection<TasksEvent> = {
  name: "tasks",
  // 2: added task_counts. 3: tasks carry their stream's revision (the ETag). 4: transcripts say which transcript their summary is of.
  version: 4,
  collections: ["tasks", "transcripts", "task_counts"],
  eventTypes: [...taskEventTypes, "FolderRenamed", "FolderDeleted"],
  async setup(db) {
    const tasks = db.collection("tasks");
    // nameKey rides along in the user's newest-first index, so a name search and its count are answered
    // from the index and read only the documents on the page; it replaces the index without it.
    await tasks.createIndex({ userId: 1, id: -1, nameKey: 1 });
    await tasks.dropIndex({ userId: 1, id: -1 });
    await tasks.createIndex({ userId: 1, status: 1, id: -1 });
    await tasks.createIndex({ userId: 1, folderId: 1, id: -1 });
    // The stuck-task sweeper asks every minute for everyone's scribing tasks, and for the pending and waiting ones last
    // moved before a cutoff, oldest first: without a status index, a scan of every task (130 ms with 100,000 of them,
    // the whole server stalled meanwhile); with status alone, a scan of every pending task (38 ms with 100,000 pending,
    // up to 220 ms in the task-read bench, whose tasks are all pending). This one answers both from the index.
    await tasks.createIndex({ status: 1, updatedAt: 1 });
    await tasks.dropIndex({ status: 1 });
    // Whether another task's transcript is the blob a deleted task named (task-transcripts-worker.ts, for blobs from
    // before transcripts had task prefixes): answered here rather than by reading every transcript.
    await db.collection("transcripts").createIndex({ "transcript.key": 1 });
    // The summary refresh job asks often for the summaries outdated by edits that have settled (summary-refresh-job.ts).
    await db.collection("transcripts").createIndex({ refreshDue: 1, editedAt: 1 });
  },
  async apply(event, db) {
    if (event.type === "FolderRenamed" || event.type === "FolderDeleted") return applyFolderEvent(event, db);
    // The transcript first: a task detail kept under the task's position (a response cache) must never
    // pair that position with an older transcript.
    await applyTranscript(event, db);
    await applyTask(event, db);
  },
};
