import type { TaskDocument } from "./tasks-projection.ts";
import type { Transcript } from "./service.ts";
import { withTokens, type Segment, type TranscriptWord } from "./segments.ts";
import { defaultShape, type DetailShape } from "./detail-include.ts";
import { allowedFormats, heavyFormats } from "./schemas.ts";

/** Spec 2.2: one row of `GET /api/tasks`. */
export function taskListItem(task: TaskDocument) {
  return {
    id: task.id,
    name: task.name,
    file: task.file ?? "",
    disk: task.disk,
    size: task.size,
    duration: task.duration,
    cost: task.cost,
    status: task.status,
    attempts: task.attempts,
    quality: task.quality,
    folder: task.folder,
    created_at: task.createdAt,
  };
}

/** A stored word as shown: only its four fields, times whole milliseconds as the schema says. */
const wordView = ({ text, start, end, confidence }: TranscriptWord): TranscriptWord => ({
  text,
  start: Math.round(start),
  end: Math.round(end),
  confidence: confidence ?? null,
});

/** A segment with its timed words (`include=words`): an empty list where none are known (supplied, or edited since). */
function withWords(segment: Segment) {
  return { ...withTokens(segment), words: segment.words?.map(wordView) ?? [] };
}

/**
 * Spec 2.1, plus `speaker_diarization`, `index` and `failure_reason` (why a failed task failed), `summary_outdated`
 * (the summary and mind map are of an older transcript), `summary_failure` (why the last summary failed) and the
 * `engine`, `language` and `vocabulary` the task asked for, and `origin` (`live`: a live session's recording). With `shape.words`,
 * each segment's timed words.
 */
export function taskDetail(
  task: TaskDocument,
  transcript: Pick<Transcript, "segments" | "summary" | "mindmap" | "summaryOutdated" | "summaryFailure"> | null,
  shape: DetailShape = defaultShape,
) {
  return {
    ...taskListItem(task),
    path: task.path,
    updated_at: task.updatedAt,
    summary: transcript?.summary ?? null,
    mindmap: transcript?.mindmap ?? null,
    tags: task.folder === null ? [] : [task.folder],
    url: task.url,
    segments: transcript?.segments?.map(shape.words ? withWords : withTokens) ?? null,
    export: { allowed_formats: [...allowedFormats], heavy_formats: [...heavyFormats], version: task.exportVersion },
    speaker_diarization: task.speakerDiarization,
    index: task.index,
    failure_reason: task.failureReason,
    summary_outdated: transcript?.summaryOutdated ?? false,
    summary_failure: transcript?.summaryFailure ?? null,
    // What the task asked for (recognition-choice.ts): null and [] where it asked nothing (the service's default).
    engine: task.engine ?? null,
    language: task.language ?? null,
    vocabulary: task.vocabulary ?? [],
    origin: task.origin ?? null,
  };
}
