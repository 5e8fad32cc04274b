import { ApiError, api, call } from "../api.ts";
import { uploadFormats } from "../upload/api-transport.ts";
import type { UploadFormats } from "../upload/file-check.ts";
import type { LiveTranscription } from "../live/live-transcription.ts";
import type { Microphone } from "./microphone.ts";
import { noTimeLeft, type Problem } from "./phase.ts";
import { recorderTypes } from "./recording-file.ts";
import { microphoneProblem, noAcceptedType } from "./support.ts";

/** A recording under way, its live transcription, what its upload is held to (the formats, the balance's seconds); or why none started. */
export type OpenedRecording =
  | { ok: true; microphone: Microphone; live: LiveTranscription | null; formats: UploadFormats; maxSeconds: number | null }
  | { ok: false; problem: Problem };

/** The recording's live transcription (captions) where this browser can; its code is fetched on the first press too. */
async function openLive(stream: MediaStream, speakers: boolean): Promise<LiveTranscription | null> {
  try {
    const { startLiveTranscription } = await import("../live/live-transcription.ts");
    return startLiveTranscription(stream, speakers);
  } catch {
    return null;
  }
}

/**
 * What Record does before recording: reads the accepted formats and the balance (no time left, no recording),
 * picks a type both this browser's recorder and the server take, then opens the microphone, whose code is
 * fetched on this first press, and starts its live transcription (telling `speakers` apart where asked).
 * `onInterrupted` is called should the recording end by itself (openMicrophone).
 */
export async function openRecording(onInterrupted: () => void, speakers: boolean): Promise<OpenedRecording> {
  try {
    const [formats, user] = await Promise.all([uploadFormats(), call(api.GET("/api/user")).catch(() => null)]);
    const maxSeconds = user?.balance.remaining_seconds ?? null;
    if (maxSeconds !== null && maxSeconds <= 0) return { ok: false, problem: noTimeLeft };
    const [type] = recorderTypes(formats, (candidate) => MediaRecorder.isTypeSupported(candidate));
    if (type === undefined) return { ok: false, problem: { message: noAcceptedType } };
    const { openMicrophone } = await import("./microphone.ts");
    let microphone: Microphone;
    try {
      microphone = await openMicrophone(type, onInterrupted);
    } catch (error) {
      return { ok: false, problem: { message: microphoneProblem(error) } };
    }
    return { ok: true, microphone, live: await openLive(microphone.stream, speakers), formats, maxSeconds };
  } catch (error) {
    return { ok: false, problem: { message: ApiError.of(error).message } };
  }
}
