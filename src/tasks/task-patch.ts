import { ValidationFailedError } from "../core/errors.ts";
import type { FolderDocument } from "../folders/folders-projection.ts";
import type { TaskCommand } from "./decider.ts";
import type { updateTaskBody } from "./schemas.ts";
import { applyText, normalizeSegments, segmentErrors, type Segment } from "./segments.ts";
import type { TranscriptRef } from "./transcripts.ts";
import { segmentsInBytes, type StoredTranscript } from "./stored-transcript.ts";
import { withKeptWords } from "./kept-words.ts";

/** What `PATCH /api/tasks/{id}` takes: the route's schema. */
export type TaskPatch = typeof updateTaskBody.static;

/** What turning a patch into commands reads and stores: the task's transcript, the user's folders, a new transcript blob. */
export type PatchSources = {
  /** The task's duration as the read model shows it: a text edit without its own spreads the words over it. */
  duration: number;
  currentSegments: () => Promise<Segment[]>;
  existingFolder: (name: string) => Promise<FolderDocument>;
  saveTranscript: (segments: Segment[]) => Promise<TranscriptRef>;
  saveStored: (stored: StoredTranscript) => Promise<TranscriptRef>;
};

/**
 * A whole transcript sent over 1 MiB, checked, numbered and serialised on the body thread (transcript-body.ts): stored
 * as it is, unless the task's transcript has timed words, which the segments sent back unchanged keep (parsed here
 * for that, as a transcript under 1 MiB always is).
 */
async function storedEdit(stored: StoredTranscript, sources: PatchSources): Promise<TranscriptRef> {
  const current = await sources.currentSegments();
  if (!current.some((segment) => segment.words && segment.words.length > 0)) return sources.saveStored(stored);
  return sources.saveTranscript(withKeptWords(segmentsInBytes(stored.bytes), current));
}

/**
 * The commands of a PATCH, in the order their events are appended: transcript, folder, name, details, rating.
 * Each field is checked here, before anything is appended, so a bad field leaves the task as it was. `stored`: the
 * `segments` sent, made ready on the body thread (the patch then has none).
 */
export async function patchCommands(patch: TaskPatch, sources: PatchSources, stored?: StoredTranscript): Promise<TaskCommand[]> {
  const commands: TaskCommand[] = [];
  if (stored) {
    commands.push({ type: "EditTranscript", transcript: await storedEdit(stored, sources) });
  } else if (patch.segments) {
    const problems = segmentErrors(patch.segments);
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    const segments = withKeptWords(normalizeSegments(patch.segments), await sources.currentSegments());
    commands.push({ type: "EditTranscript", transcript: await sources.saveTranscript(segments) });
  } else if (patch.text !== undefined) {
    const edited = applyText(await sources.currentSegments(), patch.text, patch.duration ?? sources.duration);
    if ("error" in edited) throw new ValidationFailedError({ text: [edited.error] });
    commands.push({ type: "EditTranscript", transcript: await sources.saveTranscript(edited) });
  }
  if (patch.folder !== undefined) {
    const folder = patch.folder === null ? null : await sources.existingFolder(patch.folder);
    commands.push({ type: "MoveTask", folder: folder && { id: folder.id, name: folder.name } });
  }
  if (patch.name !== undefined) commands.push({ type: "RenameTask", name: patch.name });
  if (patch.duration !== undefined || patch.cost !== undefined || patch.index !== undefined) {
    commands.push({ type: "CorrectTaskDetails", duration: patch.duration, cost: patch.cost, index: patch.index });
  }
  if (patch.quality !== undefined) commands.push({ type: "RateTask", quality: patch.quality });
  return commands;
}
