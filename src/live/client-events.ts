/**
 * The events a client sends on `GET /v1/realtime` (OpenAI's Realtime protocol, transcription sessions), as typebox
 * schemas: they validate each event and document the protocol (docs/api.md). Scribe accepts the transcription part
 * of the protocol and one extension, `session.close`; other OpenAI events (responses, conversation items) are answered
 * with an `error` event naming what is accepted.
 */
import { Type, type Static, type TSchema } from "@sinclair/typebox";
import { languagePattern } from "../tasks/recognition-choice.ts";

/** A client's own id for an event, which an `error` event about it quotes back. */
const clientEventId = Type.Optional(Type.String({ maxLength: 128, description: "The client's id for this event, quoted back by an error about it." }));

const strict = { additionalProperties: false } as const;

/** 16-bit little-endian mono PCM at OpenAI's 24 kHz, or at 16 kHz (what the recognizers take, so nothing is resampled). */
export const audioFormat = Type.Object(
  {
    type: Type.Literal("audio/pcm", {
      description: "16-bit little-endian mono PCM; audio/pcmu and audio/pcma are not offered.",
      error: "Only audio/pcm (16-bit little-endian mono PCM at 24000 or 16000 Hz) is offered; audio/pcmu and audio/pcma are not.",
    }),
    rate: Type.Optional(
      Type.Union([Type.Literal(24000), Type.Literal(16000)], {
        description: "Samples a second: 24000 (default) or 16000.",
        error: "The audio rate must be 24000 or 16000 (samples a second).",
      }),
    ),
  },
  strict,
);

export const transcriptionOptions = Type.Object(
  {
    model: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: "OpenAI's transcription model names (the default engine), or an engine's own (GET /v1/models).",
      }),
    ),
    language: Type.Optional(Type.String({ maxLength: 16, pattern: languagePattern, description: "ISO 639-1 code of the spoken language, or `auto`." })),
    prompt: Type.Optional(
      Type.String({ maxLength: 10_000, description: "Words and phrases to expect (names, terms), cut as POST /v1/audio/transcriptions cuts it." }),
    ),
    delay: Type.Optional(Type.Union([Type.Literal("minimal"), Type.Literal("low"), Type.Literal("medium"), Type.Literal("high"), Type.Literal("xhigh")])),
  },
  strict,
);

/** OpenAI's server-side voice activity detection: a turn ends after `silence_duration_ms` of silence. */
export const serverVad = Type.Object(
  {
    type: Type.Literal("server_vad", { error: "Only server_vad turn detection is offered (or null, where the client commits each turn)." }),
    threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "How loud speech must be, 0..1 (default 0.5)." })),
    prefix_padding_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 5000, description: "Audio kept before the detected start of speech (default 300)." })),
    silence_duration_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 10_000, description: "Silence that ends a turn (default 500)." })),
    // OpenAI's fields for conversation sessions: accepted so their clients work, and without effect here.
    create_response: Type.Optional(Type.Boolean()),
    interrupt_response: Type.Optional(Type.Boolean()),
    idle_timeout_ms: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
  },
  strict,
);

const noiseReduction = Type.Union([
  Type.Null(),
  Type.Object({ type: Type.Optional(Type.Union([Type.Literal("near_field"), Type.Literal("far_field")])) }, strict),
]);

export const sessionUpdate = Type.Object(
  {
    type: Type.Literal("session.update"),
    event_id: clientEventId,
    session: Type.Object(
      {
        type: Type.Literal("transcription", {
          description: "Only transcription sessions are offered.",
          error: 'Only transcription sessions are offered here: session.type must be "transcription".',
        }),
        audio: Type.Optional(
          Type.Object(
            {
              input: Type.Optional(
                Type.Object(
                  {
                    format: Type.Optional(audioFormat),
                    transcription: Type.Optional(transcriptionOptions),
                    turn_detection: Type.Optional(Type.Union([serverVad, Type.Null()], { description: "server_vad, or null: the client commits each turn." })),
                    noise_reduction: Type.Optional(noiseReduction),
                  },
                  strict,
                ),
              ),
            },
            strict,
          ),
        ),
        include: Type.Optional(Type.Array(Type.Literal("item.input_audio_transcription.logprobs"), { maxItems: 1 })),
      },
      strict,
    ),
  },
  strict,
);

export const audioAppend = Type.Object(
  {
    type: Type.Literal("input_audio_buffer.append"),
    event_id: clientEventId,
    audio: Type.String({ description: "Base64 of 16-bit little-endian PCM at the session's rate." }),
  },
  strict,
);

export const audioCommit = Type.Object({ type: Type.Literal("input_audio_buffer.commit"), event_id: clientEventId }, strict);
export const audioClear = Type.Object({ type: Type.Literal("input_audio_buffer.clear"), event_id: clientEventId }, strict);
/** Scribe's extension: ends the session; the server finishes the open turn, makes the task and answers `session.closed`. */
export const sessionClose = Type.Object({ type: Type.Literal("session.close"), event_id: clientEventId }, strict);

/** Each client event's schema, by its `type`. */
export const clientEventSchemas = {
  "session.update": sessionUpdate,
  "input_audio_buffer.append": audioAppend,
  "input_audio_buffer.commit": audioCommit,
  "input_audio_buffer.clear": audioClear,
  "session.close": sessionClose,
} as const satisfies Record<string, TSchema>;

export type ClientEventType = keyof typeof clientEventSchemas;
export type SessionUpdate = Static<typeof sessionUpdate>;
export type ClientEvent = { [K in ClientEventType]: Static<(typeof clientEventSchemas)[K]> }[ClientEventType];
export const clientEventTypes = Object.keys(clientEventSchemas) as ClientEventType[];
