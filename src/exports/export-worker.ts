import { reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { RecordedEvent } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { NotFoundError } from "../core/errors.ts";
import { taskDecider } from "../tasks/decider.ts";
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

/** Events after which the pdf and docx are made (again): a finished or edited transcript, a new name, summary or duration. */
const ahead = new Set(["TaskFinished", "TranscriptEdited", "SummaryRefreshed", "TaskRenamed", "TaskDetailsCorrected"]);

/**
 * Makes the heavy exports (pdf, docx) of a task's current transcript ahead of time, and on request
 * (ExportRequested, appended by a download that found none): renders, stores the file at
 * `exports/<taskId>/<version>.<format>`, then records ExportGenerated. It decides from the task's
 * stream, so a redelivered event finds the export made and does nothing; a burst of edits makes the
 * latest version once. Files of older versions are deleted once a newer one is recorded, all of them
 * when the task is deleted.
 */
export function exportWorker(store: EventStore, blobs: BlobStore, transcripts: TranscriptStore): Worker {
  return {
    name: "exports",
    subject: "scribe.task.>",
    concurrency: 1,
    ackWaitMs: 120_000,
    async handle(recorded) {
      if (recorded.type === "TaskDeleted") return deleteAll(store, blobs, recorded);
      const formats =
        recorded.type === "ExportRequested" ? heavy.filter((f) => f === (recorded.data as { format: string }).format) : ahead.has(recorded.type) ? heavy : [];
      for (const format of formats) await makeExport(store, blobs, transcripts, recorded, format);
    },
  };
}

async function makeExport(store: EventStore, blobs: BlobStore, transcripts: TranscriptStore, cause: RecordedEvent, format: HeavyFormat): Promise<void> {
  const plan = await planExport(
    await store.readStream(cause.streamName),
    format,
    transcripts,
    cause.type === "ExportRequested" ? {} : { largest: largestAheadOfTime },
  );
  if (!plan) return;
  const bytes = await renderHeavy(format, plan.document);
  const key = exportKey(plan.taskId, plan.version, format);
  await blobs.put(key, bytes, { contentType: contentTypes[format] });
  const requested = wasRequested(await store.readStream(cause.streamName), format, plan.version);
  try {
    await handle(
      store,
      cause.streamName,
      taskDecider,
      (state) => taskDecider.decide({ type: "RecordExport", format, version: plan.version, key, size: bytes.length, requested }, state),
      {
        metadata: reactingTo(cause, "exports"),
      },
    );
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    await blobs.delete(key); // deleted meanwhile
    return;
  }
  for (const old of supersededKeys(await store.readStream(cause.streamName), format)) await blobs.delete(old);
}

async function deleteAll(store: EventStore, blobs: BlobStore, cause: RecordedEvent): Promise<void> {
  for (const key of exportKeys(await store.readStream(cause.streamName))) await blobs.delete(key);
}
