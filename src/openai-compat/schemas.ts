import { t } from "elysia";
import { granularities as granularityNames, responseFormats } from "./formats.ts";
import { stringEnum } from "../http/openapi/string-enum.ts";
import { languagePattern, maxVocabularyEntries, maxVocabularyEntryLength } from "../tasks/recognition-choice.ts";

const granularity = stringEnum(granularityNames);
const granularities = t.Union([granularity, t.Array(granularity, { maxItems: 2 })], {
  description:
    "With `verbose_json`: `word` gives `words` with their times in seconds, `segment` gives `segments` (the default); both may be asked. " +
    "`word` alone leaves `segments` out, as OpenAI does.",
});

/** OpenAI's `POST /v1/audio/transcriptions` form (multipart/form-data), as its SDKs send it. */
export const transcriptionForm = t.Object({
  file: t.File({ description: "The audio or video, in any format ffmpeg reads; at most OPENAI_COMPAT_FILE_LIMIT_BYTES (25 MiB)." }),
  model: t.String({
    minLength: 1,
    maxLength: 256,
    description:
      "OpenAI's transcription models (`whisper-1`, `gpt-4o-transcribe`, `gpt-4o-mini-transcribe`, ...) run on the service's default engine; " +
      "an engine's own name (`sphinx`, `whisper`, `openai`) on that engine where it is offered. " +
      "Any other name is 404 `model_not_found`. GET /v1/models lists them.",
  }),
  language: t.Optional(
    t.String({
      maxLength: 16,
      pattern: languagePattern,
      description: "The spoken language, an ISO 639-1 code (`en`, `de`) or `auto`. PocketSphinx recognises English only: another language is refused (400).",
    }),
  ),
  prompt: t.Optional(
    t.String({
      maxLength: 10_000,
      description:
        "Words and phrases the audio holds (names, terms), as the task's vocabulary: separated by commas, semicolons, line breaks or sentence ends " +
        `where it has any, else by spaces; the first ${maxVocabularyEntries} distinct ones of at most ${maxVocabularyEntryLength} characters are kept. ` +
        "Whisper and an OpenAI endpoint get them as their prompt, PocketSphinx adds the words it lacks.",
    }),
  ),
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
    segments: t.Optional(t.Array(verboseSegment, { description: "Unless only `timestamp_granularities[]=word` was asked." })),
    words: t.Optional(
      t.Array(t.Object({ word: t.String(), start: t.Number({ description: "Seconds." }), end: t.Number({ description: "Seconds." }) }), {
        description: "With `timestamp_granularities[]=word`: the engine's word times, or a word's share of its segment where the engine gave none.",
      }),
    ),
    usage: t.Object({ type: t.Literal("duration"), seconds: t.Integer() }),
  },
  { description: "`verbose_json`: segments, and words when asked for, with times in seconds." },
);

export const modelSchema = t.Object({ id: t.String(), object: t.Literal("model"), created: t.Integer(), owned_by: t.String() });

export const modelParams = t.Object({ model: t.String({ minLength: 1, maxLength: 256, description: "A model's id, as GET /v1/models lists it." }) });

export const modelList = t.Object({ object: t.Literal("list"), data: t.Array(modelSchema) });
