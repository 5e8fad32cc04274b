/** The OpenAPI descriptions of the OpenAI-compatible routes (routes.ts), kept apart so the routes read as what they do. */
import { jsonResponse } from "../http/openapi/responses.ts";

const detail = (summary: string, description: string) => ({ tags: ["OpenAI compatibility"], security: [{ bearer: [] }], summary, description });
const openAiError = { $ref: "#/components/schemas/OpenAIError" };

export const transcriptionDetail = {
  ...detail(
    "Transcribe audio (OpenAI-compatible)",
    "OpenAI's endpoint: a multipart form with `file`, `model`, `language`, `prompt`, `response_format` and " +
      "`timestamp_granularities[]`. `model` picks the engine (OpenAI's names: the default engine; `sphinx`, `whisper`, `openai`: that " +
      "engine; anything else 404 `model_not_found`), `language` and `prompt` become the task's language and vocabulary. " +
      "It creates a task like any other (listed, charged, with history: the same 3-in-progress limit, 429, " +
      "and plan and balance, 403) and answers when it has finished. Past OPENAI_COMPAT_WAIT_SECONDS it answers 504 naming the task, which " +
      "goes on (poll `GET /api/tasks/{id}`). A file that cannot be decoded as audio is 400 and makes no task. Errors are in OpenAI's " +
      "shape, `{error: {message, type, param, code}}`; answers that created a task carry `x-should-retry: false` and `X-Task-Id`.",
  ),
  responses: {
    200: {
      description: "The transcript in the asked format; `X-Task-Id` names its task.",
      content: {
        "application/json": {
          schema: { oneOf: [{ $ref: "#/components/schemas/OpenAITranscription" }, { $ref: "#/components/schemas/OpenAITranscriptionVerbose" }] },
        },
        "text/plain": { schema: { type: "string" as const, description: "`text`, `srt` or `vtt`." } },
      },
    },
    404: jsonResponse("An unknown model (`model_not_found`), or the task was deleted before it finished.", openAiError),
    504: jsonResponse("Still transcribing after the wait: the message names the task to poll.", openAiError),
  },
};

export const modelsDetail = detail(
  "List the models served (OpenAI-compatible)",
  "OpenAI's transcription model names, which run on the default engine, then each engine this service offers by its own name " +
    "(`sphinx` always, `whisper` with WHISPER_MODEL, `openai` with TRANSCRIPTION_OPENAI_URL), the default first.",
);

export const modelDetail = {
  ...detail("A model served (OpenAI-compatible)", "One of `GET /v1/models`'s entries; any other name is 404 `model_not_found`."),
  responses: { 404: jsonResponse("No such model (`model_not_found`).", openAiError) },
};
