/**
 * What the record panel's live region says as a recording ends, by how it ended and what its live session came to.
 * Pure (no browser), so that it is tested as it is.
 */
import { finishTimeoutMs } from "../live/live-outcome.ts";
import { duration } from "../ui/format.ts";
import { spokenLength } from "./level.ts";

/** Why a recording ended: Stop, or a limit reached (the balance's time, the largest upload). */
export type StopReason = "stop" | "time" | "size";

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

/** Said when the live session kept nothing (it said so): the recording, kept in the page all along, goes the upload's way. */
export const liveFallbackSaid = "The live transcription kept nothing of the recording; uploading it instead…";

/**
 * Said when the live session ended before Stop and named its task: what was said until then is that task, so the
 * recording stops there rather than going on into nothing (and is never uploaded: the server has its audio).
 */
export function liveEndedSaid(seconds: number): string {
  return `The live transcription ended, so the recording stopped after ${spokenLength(seconds)}. What was said until then is kept as a transcription.`;
}

/**
 * Said when the live session gave no answer (cut off, or none within finishTimeoutMs of Stop): it may have kept, or may
 * still keep, the audio it was sent as a task, so the recording is not uploaded without asking (it would be charged twice).
 */
export function liveUnansweredSaid(why: "timeout" | "dropped"): string {
  const what =
    why === "timeout"
      ? `The live transcription did not answer within ${finishTimeoutMs / 1000} seconds: its transcription may still appear in your list.`
      : "The live transcription was cut off: what it heard may already be kept as a transcription in your list.";
  return `${what} Uploading the recording transcribes all of it again.`;
}

/** A recording kept in the page (`again`: an upload of it was tried). */
export const keptSaid = (said: string, again: boolean): string =>
  `${said} The recording is still in this page: upload it${again ? " again" : ""}, or discard it.`;
