import { integer } from "../setting.ts";

const group = "OpenAI-compatible endpoint";

/** `POST /v1/audio/transcriptions` (docs/api.md). */
export const openAiCompatSettings = {
  OPENAI_COMPAT_WAIT_SECONDS: integer({
    group,
    min: 1,
    max: 3600,
    fallback: 300,
    description: "How long POST /v1/audio/transcriptions waits for its task to finish; past it, 504 naming the task to poll.",
  }),
  OPENAI_COMPAT_FILE_LIMIT_BYTES: integer({
    group,
    min: 1024,
    max: 2 ** 31,
    // OpenAI's own limit is 25 MB: clients written for it already split longer recordings.
    fallback: 25 * 1024 * 1024,
    shownDefault: "26214400 (25 MiB)",
    description: "The largest file POST /v1/audio/transcriptions takes (413 beyond); larger media goes through uploads.",
  }),
} as const;
