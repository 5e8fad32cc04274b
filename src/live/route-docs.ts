/** The OpenAPI description of `GET /v1/realtime` (routes.ts): a WebSocket is outside OpenAPI, so it is described in words here and in docs/api.md. */
import { jsonResponse } from "../http/openapi/responses.ts";

const openAiError = { $ref: "#/components/schemas/OpenAIError" };

export const realtimeDetail = {
  tags: ["OpenAI compatibility"],
  security: [{ bearer: [] }],
  summary: "Live transcription over a WebSocket (OpenAI Realtime, transcription sessions)",
  description:
    "A WebSocket speaking OpenAI's Realtime API for transcription sessions (docs/api.md describes the events). Connect with " +
    "`?intent=transcription` and an API key of a plan with API access (`Authorization: Bearer sk_...`, or for browsers the subprotocol " +
    "`openai-insecure-api-key.<key>`, answered with the subprotocol `realtime`), or from the web app with its session. The server sends " +
    '`session.created`; the client may send `session.update` (`session.type: "transcription"`, `audio.input.format` `audio/pcm` at 24000 ' +
    "or 16000 Hz, `audio.input.transcription` `model`/`language`/`prompt`, `audio.input.turn_detection` `server_vad` or null), then " +
    "`input_audio_buffer.append` (base64 PCM16), `.commit` and `.clear`, and Scribe's `session.close`. The server answers with " +
    "`input_audio_buffer.speech_started`/`.speech_stopped`/`.committed`/`.cleared`, `conversation.item.input_audio_transcription.delta` " +
    "(words as they firm up) and `.completed` (each turn's text, with `words` timed in seconds from the session's start), `error` for every " +
    "event it cannot take (the session goes on), and `session.closed` with the `task_id` the session became. Limits: LIVE_SESSIONS_PER_ACCOUNT " +
    "sessions per account (then close 1008), LIVE_SESSIONS_AT_ONCE per process (then close 1013), LIVE_SESSION_MAX_SECONDS, " +
    "LIVE_IDLE_TIMEOUT_SECONDS, audio faster than twice real time beyond LIVE_BURST_SECONDS dropped with an `error`, events over 1 MiB " +
    "refused with an `error`; a balance that runs out ends the session with an `error` saying so. A refused connection is upgraded, " +
    "sent an `error` event, and closed (1008 for credentials, plan, `?model=` conversation sessions and the account's limits). " +
    "Every session is kept as a task of the account, charged like a recording.",
  responses: {
    101: { description: "Switching to the WebSocket protocol; every answer after it is an event on the socket." },
    426: jsonResponse("Not a WebSocket upgrade (`upgrade_required`).", openAiError),
  },
};
