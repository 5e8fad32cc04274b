import { integer } from "../setting.ts";

/** What one request may carry (the OpenAI-compatible endpoint's files included), and how much heavy work runs at once (docs/api.md). */
export const limitSettings = {
  BODY_LIMIT_BYTES: integer({
    group: "request limits",
    min: 1024,
    max: 2 ** 31,
    fallback: 1024 * 1024,
    shownDefault: "1048576 (1 MiB)",
    description: "The largest request body, except a task's create and update.",
  }),
  TRANSCRIPT_BODY_LIMIT_BYTES: integer({
    group: "request limits",
    min: 1024,
    max: 2 ** 31,
    // 24 MiB: room for a 10-million-character `text` edit escaped as JSON.
    fallback: 24 * 1024 * 1024,
    shownDefault: "25165824 (24 MiB)",
    description: "The largest body of a task's create and update (they carry whole transcripts).",
  }),
  JSON_MAX_DEPTH: integer({
    group: "request limits",
    min: 4,
    max: 1000,
    fallback: 32,
    description: "The deepest JSON body nesting.",
  }),
  JSON_MAX_VALUES: integer({
    group: "request limits",
    min: 1000,
    max: 100_000_000,
    // 100,000 segments of 20 values each.
    fallback: 2_000_000,
    description: "The most JSON values in a body that carries a transcript.",
  }),
  OPENAI_COMPAT_FILE_LIMIT_BYTES: integer({
    group: "OpenAI-compatible endpoint",
    min: 1024,
    max: 2 ** 31,
    // Shown with the OpenAI-compatible endpoint's settings, enforced with the other limits. OpenAI's own limit is 25 MB:
    // clients written for it already split longer recordings.
    fallback: 25 * 1024 * 1024,
    shownDefault: "26214400 (25 MiB)",
    description: "The largest file POST /v1/audio/transcriptions takes (413 beyond); larger media goes through uploads.",
  }),
  HEAVY_WORK_AT_ONCE: integer({
    group: "request limits",
    min: 1,
    max: 1000,
    fallback: 1,
    description: "Bodies over BODY_LIMIT_BYTES and summaries of transcripts over 1 MiB handled at once per process; the rest wait.",
  }),
} as const;
