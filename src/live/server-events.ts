/**
 * The events the server sends, in OpenAI's Realtime shapes (the `openai` package's RealtimeServerEvent types, which the
 * tests check them against), plus Scribe's: `words` on `completed` and `session.closed`. Each gets a fresh `event_id`.
 */
import { randomBytes } from "node:crypto";
import type { EventProblem } from "./protocol-read.ts";

const randomId = (prefix: string) => `${prefix}_${randomBytes(12).toString("base64url")}`;
export const newEventId = () => randomId("event");
export const newItemId = () => randomId("item");

/** The session as `session.created` and `session.updated` show it (OpenAI's RealtimeTranscriptionSessionCreateRequest). */
export type SessionView = {
  type: "transcription";
  id: string;
  object: "realtime.transcription_session";
  audio: {
    input: {
      format: { type: "audio/pcm"; rate: 16000 | 24000 };
      transcription: { model: string; language: string | null; prompt: string };
      turn_detection: { type: "server_vad"; threshold: number; prefix_padding_ms: number; silence_duration_ms: number } | null;
      noise_reduction: null;
    };
  };
  include: string[];
};

/** A word of a finished turn: seconds from the session's start (Scribe's extension to `completed`). */
export type SessionWord = { word: string; start: number; end: number; confidence: number | null };

export type ServerEvent =
  | { type: "session.created"; event_id: string; session: SessionView }
  | { type: "session.updated"; event_id: string; session: SessionView }
  | { type: "input_audio_buffer.speech_started"; event_id: string; audio_start_ms: number; item_id: string }
  | { type: "input_audio_buffer.speech_stopped"; event_id: string; audio_end_ms: number; item_id: string }
  | { type: "input_audio_buffer.committed"; event_id: string; item_id: string; previous_item_id: string | null }
  | { type: "input_audio_buffer.cleared"; event_id: string }
  | { type: "conversation.item.input_audio_transcription.delta"; event_id: string; item_id: string; content_index: 0; delta: string }
  | {
      type: "conversation.item.input_audio_transcription.completed";
      event_id: string;
      item_id: string;
      content_index: 0;
      transcript: string;
      usage: { type: "duration"; seconds: number };
      words: SessionWord[];
    }
  | {
      type: "error";
      event_id: string;
      error: { type: "invalid_request_error" | "server_error"; code: string; message: string; param: string | null; event_id: string | null };
    }
  | { type: "session.closed"; event_id: string; task_id: number | null };

/** The `error` event about a client's event, or about the session (a refusal, a limit): OpenAI's RealtimeErrorEvent. */
export function errorEvent(problem: EventProblem, type: "invalid_request_error" | "server_error" = "invalid_request_error"): ServerEvent {
  return {
    type: "error",
    event_id: newEventId(),
    error: { type, code: problem.code, message: problem.message, param: problem.param, event_id: problem.eventId },
  };
}

/** An `error` event that no client event caused. */
export const sessionError = (code: string, message: string, type: "invalid_request_error" | "server_error" = "invalid_request_error"): ServerEvent =>
  errorEvent({ code, message, param: null, eventId: null }, type);
