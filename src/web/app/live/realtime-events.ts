/**
 * The events of a live transcription session that the page sends and reads (OpenAI's Realtime API for
 * transcription, as Scribe speaks it: docs/api.md). Pure, so that they are tested without a browser.
 */
import { liveSampleRate } from "./pcm.ts";

/** The server's events the page acts on; any other is ignored (`null` from parseServerEvent). */
export type ServerEvent =
  | { type: "session.created" }
  | { type: "session.updated" }
  | { type: "input_audio_buffer.speech_started"; itemId: string | null }
  | { type: "input_audio_buffer.committed"; itemId: string | null }
  | { type: "conversation.item.input_audio_transcription.delta"; itemId: string; delta: string }
  | { type: "conversation.item.input_audio_transcription.completed"; itemId: string; transcript: string }
  | { type: "error"; message: string; code: string | null }
  /** Scribe's own: the session ended as asked (`session.close`), and became this task. */
  | { type: "session.closed"; taskId: number | null };

const record = (value: unknown): Record<string, unknown> | null =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
const text = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** One message of the socket as an event the page acts on, or null: not JSON, not an object, or a type it ignores. */
export function parseServerEvent(message: unknown): ServerEvent | null {
  if (typeof message !== "string") return null;
  let data: Record<string, unknown> | null;
  try {
    data = record(JSON.parse(message));
  } catch {
    return null;
  }
  if (!data) return null;
  const itemId = text(data.item_id);
  switch (data.type) {
    case "session.created":
    case "session.updated":
      return { type: data.type };
    case "input_audio_buffer.speech_started":
    case "input_audio_buffer.committed":
      return { type: data.type, itemId };
    case "conversation.item.input_audio_transcription.delta": {
      const delta = text(data.delta);
      return itemId !== null && delta !== null ? { type: data.type, itemId, delta } : null;
    }
    case "conversation.item.input_audio_transcription.completed": {
      const transcript = text(data.transcript);
      return itemId !== null && transcript !== null ? { type: data.type, itemId, transcript } : null;
    }
    case "error": {
      const error = record(data.error);
      return { type: "error", message: text(error?.message) ?? "The live transcription failed.", code: text(error?.code) };
    }
    case "session.closed": {
      const taskId = data.task_id;
      return { type: "session.closed", taskId: typeof taskId === "number" && Number.isSafeInteger(taskId) && taskId > 0 ? taskId : null };
    }
    default:
      return null;
  }
}

/**
 * The session the page asks for: transcription of 16 kHz PCM16, turns ended by the server's voice detection, on
 * the service's default engine (`whisper-1` is OpenAI's name for it), or telling speakers apart with
 * `gpt-4o-transcribe-diarize`, as the upload's switch does.
 */
export function sessionUpdate(speakers: boolean) {
  return {
    type: "session.update",
    session: {
      type: "transcription",
      audio: {
        input: {
          format: { type: "audio/pcm", rate: liveSampleRate },
          transcription: { model: speakers ? "gpt-4o-transcribe-diarize" : "whisper-1" },
          turn_detection: { type: "server_vad" },
        },
      },
    },
  } as const;
}

export const appendEvent = (audio: string) => ({ type: "input_audio_buffer.append", audio }) as const;
export const commitEvent = { type: "input_audio_buffer.commit" } as const;
export const closeEvent = { type: "session.close" } as const;

/** Where the live transcription is: this page's origin, ws or wss as the page is http or https. */
export function realtimeUrl(location: { protocol: string; host: string }): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/v1/realtime?intent=transcription`;
}
