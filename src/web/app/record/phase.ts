import { duration } from "../ui/format.ts";
import type { CompletionFailed, FileToUpload } from "../upload/multipart-upload.ts";
import type { Rate } from "../upload/progress-meter.ts";
import { spokenLength } from "./level.ts";
import type { LiveTranscription } from "../live/live-transcription.ts";
import type { Microphone } from "./microphone.ts";
import type { StopReason } from "./recording-view.tsx";

/** A refusal, and whether the Account page (top up, change plan) is the way out. */
export type Problem = { message: string; account?: boolean };

/** Where the record panel is, from Record to the task (or back). */
export type Phase =
  | { kind: "idle"; problem: Problem | null }
  | { kind: "starting" }
  /** `live`: its live transcription (captions), null where this browser has none. */
  | { kind: "recording"; microphone: Microphone; live: LiveTranscription | null; maxSeconds: number | null; maxBytes: number }
  /** Stopped, while the live session becomes a task. */
  | { kind: "closing"; live: LiveTranscription; said: string }
  | { kind: "uploading"; file: FileToUpload; rate: Rate; said: string }
  /** A recording that is not uploaded (cancelled, or refused): kept in the page, to upload again or discard. */
  | { kind: "kept"; file: FileToUpload; said: string; failed: boolean; stored: CompletionFailed | null };

export const noTimeLeft: Problem = { message: "Your balance has no transcription time left; top up or upgrade your plan to record.", account: true };

/** What the live region says as a recording ends and its upload starts. */
export function stopSaid(reason: StopReason | "interrupted", seconds: number, maxSeconds: number | null): string {
  const length = spokenLength(seconds);
  if (reason === "time") return `The recording stopped at the ${duration(maxSeconds ?? seconds)} your balance allows. Uploading ${length}…`;
  if (reason === "size") return `The recording stopped at the largest file that can be uploaded. Uploading ${length}…`;
  if (reason === "interrupted") return `The microphone stopped (was it unplugged?). Uploading the ${length} recorded…`;
  return `Recorded ${length}. Uploading…`;
}

/** What the live region says as a recording with live captions ends and its session becomes a task. */
export function closingSaid(reason: StopReason | "interrupted", seconds: number, maxSeconds: number | null): string {
  const length = spokenLength(seconds);
  if (reason === "time") return `The recording stopped at the ${duration(maxSeconds ?? seconds)} your balance allows. Finishing its transcription…`;
  if (reason === "interrupted") return `The microphone stopped (was it unplugged?). Finishing the transcription of the ${length} recorded…`;
  return `Recorded ${length}. Finishing the transcription…`;
}

/** Said when the live session did not become a task: the recording, kept in the page all along, goes the upload's way. */
export const liveFallbackSaid = "The live transcription did not finish; uploading the recording instead…";

/** What the live region says in each phase: once as it begins, never the clock (the timer is there for that). */
export function statusOf(phase: Phase): string {
  switch (phase.kind) {
    case "starting":
      return "Asking for the microphone…";
    case "recording":
      return "Recording. Press Stop to finish and transcribe.";
    case "uploading":
    case "closing":
      return phase.said;
    case "kept":
      return phase.failed ? "" : `${phase.said} The recording is still in this page: upload it again, or discard it.`;
    case "idle":
      return "";
  }
}

/** What the alert says: a refusal, or why an upload failed. */
export function problemOf(phase: Phase): Problem | null {
  if (phase.kind === "idle") return phase.problem;
  return phase.kind === "kept" && phase.failed ? { message: phase.said } : null;
}
