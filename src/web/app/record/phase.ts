import type { CompletionFailed, FileToUpload } from "../upload/multipart-upload.ts";
import type { Rate } from "../upload/progress-meter.ts";
import { keptSaid } from "./said.ts";
import type { LiveTranscription } from "../live/live-transcription.ts";
import type { Microphone } from "./microphone.ts";

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
  /**
   * A recording that is not uploaded (cancelled, or refused; `again`: an upload was tried), or one whose live session
   * did not say whether it kept it: kept in the page, to upload (again) or discard.
   */
  | { kind: "kept"; file: FileToUpload; said: string; failed: boolean; stored: CompletionFailed | null; again: boolean }
  /** The live session ended before Stop (the service stopping, idle, the balance) and became this task: the recording stopped there. */
  | { kind: "ended"; taskId: number; live: LiveTranscription; said: string };

export const noTimeLeft: Problem = { message: "Your balance has no transcription time left; top up or upgrade your plan to record.", account: true };

/** What the live region says in each phase: once as it begins, never the clock (the timer is there for that). */
export function statusOf(phase: Phase): string {
  switch (phase.kind) {
    case "starting":
      return "Asking for the microphone…";
    case "recording":
      return "Recording. Press Stop to finish and transcribe.";
    case "uploading":
    case "closing":
    case "ended":
      return phase.said;
    case "kept":
      return phase.failed ? "" : keptSaid(phase.said, phase.again);
    case "idle":
      return "";
  }
}

/** What the alert says: a refusal, or why an upload failed. */
export function problemOf(phase: Phase): Problem | null {
  if (phase.kind === "idle") return phase.problem;
  return phase.kind === "kept" && phase.failed ? { message: phase.said } : null;
}
