import type { TaskDocument } from "./tasks-projection.ts";
import type { Transcript } from "./service.ts";
import { withTokens } from "./segments.ts";
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

/**
 * Spec 2.1, plus `speaker_diarization`, `index` and `failure_reason` (why a failed task failed), `summary_outdated`
 * (the summary and mind map are of an older transcript) and `summary_failure` (why the last summary failed).
 */
export function taskDetail(task: TaskDocument, transcript: Pick<Transcript, "segments" | "summary" | "mindmap" | "summaryOutdated" | "summaryFailure"> | null) {
  return {
    ...taskListItem(task),
    path: task.path,
    updated_at: task.updatedAt,
    summary: transcript?.summary ?? null,
    mindmap: transcript?.mindmap ?? null,
    tags: task.folder === null ? [] : [task.folder],
    url: task.url,
    segments: transcript?.segments?.map(withTokens) ?? null,
    export: { allowed_formats: [...allowedFormats], heavy_formats: [...heavyFormats], version: task.exportVersion },
    speaker_diarization: task.speakerDiarization,
    index: task.index,
    failure_reason: task.failureReason,
    summary_outdated: transcript?.summaryOutdated ?? false,
    summary_failure: transcript?.summaryFailure ?? null,
  };
}
