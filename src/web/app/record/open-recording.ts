import { ApiError, api, call } from "../api.ts";
import { uploadFormats } from "../upload/api-transport.ts";
import type { UploadFormats } from "../upload/file-check.ts";
import type { Microphone } from "./microphone.ts";
import { noTimeLeft, type Problem } from "./phase.ts";
import { recorderTypes } from "./recording-file.ts";
import { microphoneProblem, noAcceptedType } from "./support.ts";

/** A recording under way, with what its upload is held to (the formats, the balance's seconds); or why none started. */
export type OpenedRecording = { ok: true; microphone: Microphone; formats: UploadFormats; maxSeconds: number | null } | { ok: false; problem: Problem };

/**
 * What Record does before recording: reads the accepted formats and the balance (no time left, no recording),
 * picks a type both this browser's recorder and the server take, then opens the microphone, whose code is
 * fetched on this first press. `onInterrupted` is called should the recording end by itself (openMicrophone).
 */
export async function openRecording(onInterrupted: () => void): Promise<OpenedRecording> {
  try {
    const [formats, user] = await Promise.all([uploadFormats(), call(api.GET("/api/user")).catch(() => null)]);
    const maxSeconds = user?.balance.remaining_seconds ?? null;
    if (maxSeconds !== null && maxSeconds <= 0) return { ok: false, problem: noTimeLeft };
    const [type] = recorderTypes(formats, (candidate) => MediaRecorder.isTypeSupported(candidate));
    if (type === undefined) return { ok: false, problem: { message: noAcceptedType } };
    const { openMicrophone } = await import("./microphone.ts");
    try {
      return { ok: true, microphone: await openMicrophone(type, onInterrupted), formats, maxSeconds };
    } catch (error) {
      return { ok: false, problem: { message: microphoneProblem(error) } };
    }
  } catch (error) {
    return { ok: false, problem: { message: ApiError.of(error).message } };
  }
}
