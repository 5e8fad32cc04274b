import { reactingTo, type Recorded } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import { NotFoundError } from "../core/errors.ts";
import { TaskCommands, taskIdOf } from "../tasks/commands.ts";
import { taskEventTypes, type TaskEvent } from "../tasks/events.ts";
import { contentTypes, type HeavyFormat } from "./formats/index.ts";
import { exportKey, exportKeys, planExport, supersededKeys, wasRequested } from "./plan.ts";
import { renderHeavy } from "./render.ts";
import type { Worker } from "../core/worker.ts";

const heavy: readonly HeavyFormat[] = ["pdf", "docx"];

/**
 * Made ahead of time only up to this size (about a day of speech); a larger transcript's pdf and docx are
 * made when first asked for (202, then ready). Rendering one of 100,000 segments took gigabytes, and nobody
 * may ever download it.
 */
const largestAheadOfTime = { segments: 20_000, bytes: 8 * 1024 * 1024 };

/**
 * Events after which the pdf and docx are made (again): a finished or edited transcript, a new name, summary or duration.
 * EXPORT_AHEAD_OF_TIME=0 makes them only when asked for.
 */
const ahead = new Set(["TaskFinished", "TranscriptEdited", "SummaryRefreshed", "TaskRenamed", "TaskDetailsCorrected"]);

/**
 * Makes the heavy exports (pdf, docx) of a task's current transcript ahead of time, and on request
 * (ExportRequested, appended by a download that found none): renders, stores the file at
 * `exports/<taskId>/<version>.<format>`, then records ExportGenerated. It decides from the task's
 * stream, so a redelivered event finds the export made and does nothing; a burst of edits makes the
 * latest version once. Files of older versions are deleted once a newer one is recorded, all of them
 * when the task is deleted.
 */
export function exportWorker(store: EventStore, blobs: BlobStore, transcripts: TranscriptStore, { aheadOfTime = true } = {}): Worker<TaskEvent> {
  const tasks = new TaskCommands(store);
  const madeAhead = aheadOfTime ? ahead : new Set<string>();
  return {
    name: "exports",
    subject: "scribe.task.>",
    eventTypes: taskEventTypes,
    concurrency: 1,
    ackWaitMs: 120_000,
    async handle(recorded) {
      const taskId = taskIdOf(recorded);
      if (taskId === null) return;
      const task = { tasks, taskId };
      if (recorded.type === "TaskDeleted") return deleteAll(task, blobs);
      const formats = recorded.type === "ExportRequested" ? heavy.filter((f) => f === recorded.data.format) : madeAhead.has(recorded.type) ? heavy : [];
      for (const format of formats) await makeExport(task, blobs, transcripts, recorded, format);
    },
  };
}

/** The task a delivery is about, and how to read and change it. */
type TaskAt = { tasks: TaskCommands; taskId: number };

type Cause = Recorded<TaskEvent>;

async function makeExport({ tasks, taskId }: TaskAt, blobs: BlobStore, transcripts: TranscriptStore, cause: Cause, format: HeavyFormat): Promise<void> {
  const plan = await planExport(await tasks.events(taskId), format, transcripts, cause.type === "ExportRequested" ? {} : { largest: largestAheadOfTime });
  if (!plan) return;
  const bytes = await renderHeavy(format, plan.document);
  const key = exportKey(plan.taskId, plan.version, format);
  await blobs.put(key, bytes, { contentType: contentTypes[format] });
  const requested = wasRequested(await tasks.events(taskId), format, plan.version);
  try {
    const record = { type: "RecordExport", format, version: plan.version, key, size: bytes.length, requested } as const;
    await tasks.run(taskId, record, { metadata: reactingTo(cause, "exports") });
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await blobs.delete(key); // deleted meanwhile
    return;
  }
  for (const old of supersededKeys(await tasks.events(taskId), format)) await blobs.delete(old);
}

async function deleteAll({ tasks, taskId }: TaskAt, blobs: BlobStore): Promise<void> {
  for (const key of exportKeys(await tasks.events(taskId))) await blobs.delete(key);
}
