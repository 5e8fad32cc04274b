import { Elysia } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { ForbiddenError } from "../core/errors.ts";
import { releaseHeavyWork } from "../http/heavy-work-slots.ts";
import { jsonResponse } from "../http/openapi/responses.ts";
import type { Caller } from "../accounts/service.ts";
import { render, type ResponseFormat } from "./formats.ts";
import type { OpenAiTranscriptions } from "./service.ts";
import { modelList, transcriptionForm } from "./schemas.ts";

export type ServedModel = { id: string; object: "model"; created: number; owned_by: string };

/**
 * OpenAI's `POST /v1/audio/transcriptions` and `GET /v1/models`, for clients written for OpenAI (its SDKs
 * with `baseURL` set to ours + `/v1`). They take an API key, not a login token: they are for integrations,
 * like the keys themselves. Errors are in OpenAI's shape on these routes (src/http/openai-errors.ts).
 */
export function openAiRoutes({
  transcriptions,
  models,
  language,
  waitSeconds,
  authenticated,
}: {
  transcriptions: OpenAiTranscriptions;
  /** What `GET /v1/models` lists; any other name is served by the same engine all the same. */
  models: readonly ServedModel[];
  /** The language the configured engine transcribes, as `verbose_json` names it. */
  language: string;
  waitSeconds: number;
  authenticated: Authenticated;
}) {
  const detail = (summary: string, description: string) => ({ tags: ["OpenAI compatibility"], security: [{ bearer: [] }], summary, description });
  const apiKeyOnly = (caller: Caller) => {
    if (caller.kind !== "api_key") throw new ForbiddenError("The OpenAI-compatible endpoints take an API key (sk_...) as the Bearer token, not a login token.");
  };
  return new Elysia({ name: "openai-compat-routes" })
    .use(authenticated)
    .post(
      "/v1/audio/transcriptions",
      async ({ body, caller, metadata, request, server }) => {
        apiKeyOnly(caller);
        // The answer waits for the transcription: past Bun's idle timeout (10 s), up to the configured wait.
        server?.timeout(request, waitSeconds + 30);
        const submitted = await transcriptions.submit(caller.userId, body.file, metadata);
        // The file is stored: the body's memory is not held while the request waits.
        releaseHeavyWork(request);
        const finished = await transcriptions.finished(caller.userId, submitted, request.signal);
        const granularities = [body["timestamp_granularities[]"] ?? [], body.timestamp_granularities ?? []].flat();
        const format: ResponseFormat = body.response_format ?? "json";
        const answer = render(format, { ...finished, language, words: granularities.includes("word") });
        return new Response(answer.body, { headers: { "content-type": answer.contentType, "x-task-id": String(submitted.taskId) } });
      },
      {
        body: transcriptionForm,
        detail: {
          ...detail(
            "Transcribe audio (OpenAI-compatible)",
            "OpenAI's endpoint: a multipart form with `file`, `model` (any name), `language`, `prompt`, `response_format` and " +
              "`timestamp_granularities[]`. It creates a task like any other (listed, charged, with history: the same 3-in-progress limit, 429, " +
              "and plan and balance, 403) and answers when it has finished. Past OPENAI_COMPAT_WAIT_SECONDS it answers 504 naming the task, which " +
              "goes on (poll `GET /api/tasks/{id}`). A file that cannot be decoded as audio is 400 and makes no task. Errors are in OpenAI's " +
              "shape, `{error: {message, type, param, code}}`; answers that created a task carry `x-should-retry: false` and `X-Task-Id`.",
          ),
          responses: {
            200: {
              description: "The transcript in the asked format; `X-Task-Id` names its task.",
              content: {
                "application/json": {
                  schema: {
                    oneOf: [{ $ref: "#/components/schemas/OpenAITranscription" }, { $ref: "#/components/schemas/OpenAITranscriptionVerbose" }],
                  },
                },
                "text/plain": { schema: { type: "string" as const, description: "`text`, `srt` or `vtt`." } },
              },
            },
            504: jsonResponse("Still transcribing after the wait: the message names the task to poll.", { $ref: "#/components/schemas/OpenAIError" }),
          },
        },
      },
    )
    .get(
      "/v1/models",
      ({ caller }) => {
        apiKeyOnly(caller);
        return { object: "list" as const, data: [...models] };
      },
      {
        response: { 200: modelList },
        detail: detail("List the models served (OpenAI-compatible)", "`whisper-1` and the configured engine; every name runs on that engine."),
      },
    );
}
