import { t } from "elysia";
import { responseFormats } from "./formats.ts";
import { stringEnum } from "../http/openapi/string-enum.ts";

const granularity = stringEnum(["word", "segment"]);
const granularities = t.Union([granularity, t.Array(granularity, { maxItems: 2 })], {
  description: "`word` adds `words` with their times to `verbose_json`; `segment` (always there) is accepted.",
});

/** OpenAI's `POST /v1/audio/transcriptions` form (multipart/form-data), as its SDKs send it. */
export const transcriptionForm = t.Object({
  file: t.File({ description: "The audio or video, in any format ffmpeg reads; at most OPENAI_COMPAT_FILE_LIMIT_BYTES (25 MiB)." }),
  model: t.String({ minLength: 1, maxLength: 256, description: "Any name, `whisper-1` included: every model runs on the configured engine." }),
  language: t.Optional(t.String({ maxLength: 64, description: "Accepted; the configured engine's language is used (docs/api.md)." })),
  prompt: t.Optional(t.String({ maxLength: 10_000, description: "Accepted and not used: the engines take no prompt." })),
  response_format: t.Optional(stringEnum(responseFormats, { description: "json (default), text, srt, vtt or verbose_json." })),
  temperature: t.Optional(t.Numeric({ minimum: 0, maximum: 1, description: "Accepted and not used." })),
  // The SDKs send an array as repeated `name[]` fields; curl users often leave the brackets out.
  "timestamp_granularities[]": t.Optional(granularities),
  timestamp_granularities: t.Optional(granularities),
});

export const transcriptionJson = t.Object(
  { text: t.String(), usage: t.Object({ type: t.Literal("duration"), seconds: t.Integer() }) },
  { description: "`json`: the text." },
);

const verboseSegment = t.Object({
  id: t.Integer(),
  seek: t.Integer(),
  start: t.Number({ description: "Seconds." }),
  end: t.Number({ description: "Seconds." }),
  text: t.String(),
  tokens: t.Array(t.Integer(), { description: "Always empty: the engines give no token ids." }),
  temperature: t.Number(),
  avg_logprob: t.Number(),
  compression_ratio: t.Number(),
  no_speech_prob: t.Number(),
});

export const transcriptionVerbose = t.Object(
  {
    task: t.Literal("transcribe"),
    language: t.String(),
    duration: t.Number({ description: "Seconds." }),
    text: t.String(),
    segments: t.Array(verboseSegment),
    words: t.Optional(t.Array(t.Object({ word: t.String(), start: t.Number(), end: t.Number() }), { description: "With `timestamp_granularities[]=word`." })),
    usage: t.Object({ type: t.Literal("duration"), seconds: t.Integer() }),
  },
  { description: "`verbose_json`: segments, and words when asked for, with times in seconds." },
);

export const modelSchema = t.Object({ id: t.String(), object: t.Literal("model"), created: t.Integer(), owned_by: t.String() });

export const modelList = t.Object({ object: t.Literal("list"), data: t.Array(modelSchema) });
