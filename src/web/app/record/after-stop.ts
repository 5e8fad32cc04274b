/**
 * What Stop leads to, from what the recording and its live session came to. The task a session named is the
 * recording's, and its audio is never uploaded too (it would be transcribed and charged twice); a session that may
 * have kept the audio without saying so leaves the recording for the person to upload or not; only where no session
 * kept anything is the recording uploaded at once. Pure, so that it is tested without a browser.
 */
import type { LiveOutcome } from "../live/live-outcome.ts";
import type { UploadFormats } from "../upload/file-check.ts";
import type { FileToUpload } from "../upload/multipart-upload.ts";
import { recordingFile, type Recorded } from "./recording-file.ts";
import { liveFallbackSaid, liveUnansweredSaid, stopSaid, type StopReason } from "./said.ts";

export type AfterStop =
  | { kind: "open"; taskId: number }
  /** The recording cannot be uploaded (empty, too large, a type the server does not take): why. */
  | { kind: "refused"; reason: string }
  | { kind: "keep"; file: FileToUpload; said: string }
  | { kind: "upload"; file: FileToUpload; said: string };

export type StoppedRecording = {
  recorded: Recorded;
  accepted: UploadFormats;
  reason: StopReason | "interrupted";
  maxSeconds: number | null;
  /** Whether a live session was still taking the audio when Stop was pressed (a fallback is then said as one). */
  streaming: boolean;
};

/** `outcome`: the live session's (nothing, without one). */
export function afterStop(outcome: LiveOutcome, stopped: StoppedRecording): AfterStop {
  if (outcome.kind === "task") return { kind: "open", taskId: outcome.taskId };
  const made = recordingFile(stopped.recorded, stopped.accepted);
  if (!made.ok) return { kind: "refused", reason: made.reason };
  if (outcome.kind === "unknown") return { kind: "keep", file: made.file, said: liveUnansweredSaid(outcome.why) };
  const said = stopped.streaming ? liveFallbackSaid : stopSaid(stopped.reason, stopped.recorded.seconds, stopped.maxSeconds);
  return { kind: "upload", file: made.file, said };
}
