import type { RecordedEvent } from "../core/event.ts";
import { evolveTask, evolveTranscript, type TaskFields, type TranscriptFields } from "../tasks/tasks-projection.ts";
import { isTaskEvent, type TaskEvent } from "../tasks/events.ts";
import { exportDocument, type ExportDocument } from "./document.ts";
import type { HeavyFormat } from "./formats/index.ts";
import { segmentCount, type TranscriptStore } from "../tasks/transcripts.ts";

/**
 * What the export worker decides from a task's stream alone (no read model, so no lag): the task and
 * transcript folded with the `tasks` projection's own evolve functions (the same `exportVersion` the
 * API compares against), and the exports already made.
 */
export type ExportPlan = { taskId: number; userId: number; version: string; document: ExportDocument };

/** Events whose data appears in a pdf or docx: after one, an export made before it is out of date. */
const contentEvents = new Set<string>(["TaskCreated", "TaskRenamed", "TranscriptEdited", "TaskDetailsCorrected", "SummaryRefreshed", "TaskFinished"]);

type Generated = Extract<TaskEvent, { type: "ExportGenerated" }>["data"] & { revision: number };
type Requested = Extract<TaskEvent, { type: "ExportRequested" }>["data"] & { revision: number };

export function foldTask(events: readonly RecordedEvent[]) {
  let task: TaskFields | null = null;
  let transcript: TranscriptFields | null = null;
  let contentRevision = -1;
  const generated: Generated[] = [];
  const requested: Requested[] = [];
  // What the tasks projection never sees, its evolve functions don't know.
  for (const event of events.filter(isTaskEvent)) {
    task = evolveTask(task, event);
    transcript = evolveTranscript(transcript, event);
    if (contentEvents.has(event.type)) contentRevision = event.revision;
    if (event.type === "ExportGenerated") generated.push({ ...event.data, revision: event.revision });
    if (event.type === "ExportRequested") requested.push({ ...event.data, revision: event.revision });
  }
  return { task, transcript, contentRevision, generated, requested };
}

/**
 * The export to make now, or null: no task, no transcript, or an export of the current content exists.
 * `transcripts` reads the segments the stream refers to (see TranscriptStore).
 */
export async function planExport(
  events: readonly RecordedEvent[],
  format: HeavyFormat,
  transcripts: Pick<TranscriptStore, "segmentsOf">,
  options: { largest?: { segments: number; bytes: number } } = {},
): Promise<ExportPlan | null> {
  const { task, transcript, contentRevision, generated } = foldTask(events);
  const count = transcript ? segmentCount(transcript) : null;
  if (!task || !transcript || !count) return null;
  const { largest } = options;
  if (largest && (count > largest.segments || (transcript.transcript?.bytes ?? 0) > largest.bytes)) return null;
  const upToDate = generated.some((g) => g.format === format && g.version === task.exportVersion && g.revision > contentRevision);
  if (upToDate) return null;
  const segments = await transcripts.segmentsOf(transcript);
  return { taskId: task.id, userId: task.userId, version: task.exportVersion, document: exportDocument(task, { segments, summary: transcript.summary }) };
}

/** Whether someone asked for this export (a download answered 202) since the last one of it was made. */
export function wasRequested(events: readonly RecordedEvent[], format: string, version: string): boolean {
  const { generated, requested } = foldTask(events);
  const lastMade = Math.max(-1, ...generated.filter((g) => g.format === format && g.version === version).map((g) => g.revision));
  return requested.some((r) => r.format === format && r.version === version && r.revision > lastMade);
}

/** Blob keys of exports older than the newest of their format: nothing serves them any more. */
export function supersededKeys(events: readonly RecordedEvent[], format: string): string[] {
  const made = foldTask(events).generated.filter((g) => g.format === format);
  if (made.length === 0) return [];
  const newest = made.reduce((a, b) => (BigInt(b.version) > BigInt(a.version) ? b : a));
  return [...new Set(made.filter((g) => BigInt(g.version) < BigInt(newest.version)).map((g) => g.key))];
}

/** Every export blob key the stream mentions (to delete with the task). */
export const exportKeys = (events: readonly RecordedEvent[]) => [...new Set(foldTask(events).generated.map((g) => g.key))];

export const exportKey = (taskId: number, version: string, format: HeavyFormat) => `exports/${taskId}/${version}.${format}`;
