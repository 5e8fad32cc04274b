import { integer } from "../config/setting.ts";

const group = "OpenAI-compatible endpoint";

/**
 * `POST /v1/audio/transcriptions` (docs/api.md). The largest file it takes is a request limit, which the HTTP layer
 * enforces: OPENAI_COMPAT_FILE_LIMIT_BYTES is the core's (src/config/settings/limits.ts), shown after these.
 */
export const openAiCompatSettings = {
  OPENAI_COMPAT_WAIT_SECONDS: integer({
    group,
    min: 1,
    max: 3600,
    fallback: 300,
    description: "How long POST /v1/audio/transcriptions waits for its task to finish; past it, 504 naming the task to poll.",
  }),
} as const;
