import { checkFile, type FileCheck, type UploadFormats } from "../upload/file-check.ts";
import type { FileToUpload } from "../upload/multipart-upload.ts";

/**
 * What MediaRecorder is asked to record, best first: Opus (speech at a few KiB a second) in WebM (Chromium,
 * Firefox) or Ogg (Firefox), then whatever audio the browser has (Safari: MP4/AAC). Only those the server lists
 * are asked for (GET /api/uploads/formats; ffmpeg decodes them all), so a recording is never refused for its type.
 */
export const preferredTypes = ["audio/webm;codecs=opus", "audio/ogg;codecs=opus", "audio/webm", "audio/ogg", "audio/mp4"];

const essenceOf = (type: string) => type.split(";")[0]!.trim().toLowerCase();

/** The extension the server files a recording's type under: the first listed format that takes its type. */
export function extensionFor(type: string, accepted: UploadFormats): string | null {
  const essence = essenceOf(type);
  return accepted.formats.find((format) => format.content_types.includes(essence))?.extension ?? null;
}

/** The types of `preferredTypes` that this browser records and the server accepts, best first. */
export function recorderTypes(accepted: UploadFormats, isTypeSupported: (type: string) => boolean): string[] {
  return preferredTypes.filter((type) => extensionFor(type, accepted) !== null && isTypeSupported(type));
}

const two = (value: number) => String(value).padStart(2, "0");

/** "Recording 2026-11-26 14:03": when it started, in the reader's own time, sortable, and the task's name. */
export function recordingName(startedAt: Date): string {
  const day = `${startedAt.getFullYear()}-${two(startedAt.getMonth() + 1)}-${two(startedAt.getDate())}`;
  return `Recording ${day} ${two(startedAt.getHours())}:${two(startedAt.getMinutes())}`;
}

/** What a finished recording is: its bytes (and the type MediaRecorder gave them), when it started, how long it ran. */
export type Recorded = { body: Blob; type: string; startedAt: Date; seconds: number };

/**
 * A finished recording as a file to upload, named for when it started, with the type MediaRecorder produced; or
 * the reason it cannot be uploaded, in the file upload's words (checkFile: empty, over the largest size).
 */
export function recordingFile(recorded: Recorded, accepted: UploadFormats): { ok: true; file: FileToUpload } | Extract<FileCheck, { ok: false }> {
  const extension = extensionFor(recorded.type, accepted);
  if (extension === null)
    return { ok: false, reason: `This browser records ${essenceOf(recorded.type) || "audio"} that the server does not accept; upload a file instead.` };
  const name = `${recordingName(recorded.startedAt)}.${extension}`;
  const check = checkFile({ name, type: recorded.type, size: recorded.body.size }, accepted);
  if (!check.ok) return check;
  const duration = Math.max(1, Math.round(recorded.seconds));
  return { ok: true, file: { name, contentType: check.contentType, size: recorded.body.size, body: recorded.body, duration } };
}
