import { Elysia } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { ForbiddenError } from "../core/errors.ts";
import { releaseHeavyWork } from "../http/heavy-work-slots.ts";
import type { Caller } from "../accounts/service.ts";
import type { RecognitionOffer } from "../tasks/recognition-choice.ts";
import { render, type ResponseFormat } from "./formats.ts";
import type { OpenAiTranscriptions } from "./service.ts";
import { modelList, modelParams, modelSchema, transcriptionForm } from "./schemas.ts";
import { servedModel, servedModels } from "./models.ts";
import { modelDetail, modelsDetail, transcriptionDetail } from "./route-docs.ts";

/**
 * OpenAI's `POST /v1/audio/transcriptions`, `GET /v1/models` and `GET /v1/models/{model}`, for clients written for OpenAI (its SDKs
 * with `baseURL` set to ours + `/v1`). They take an API key, not a login token: they are for integrations,
 * like the keys themselves. Errors are in OpenAI's shape on these routes (src/http/openai-errors.ts).
 */
export function openAiRoutes({
  transcriptions,
  offer,
  waitSeconds,
  authenticated,
}: {
  transcriptions: OpenAiTranscriptions;
  /** The engines a task may name, which `GET /v1/models` lists beside OpenAI's model names (models.ts). */
  offer: RecognitionOffer;
  waitSeconds: number;
  authenticated: Authenticated;
}) {
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
        const submitted = await transcriptions.submit(caller.userId, body.file, body, metadata);
        // The file is stored: the body's memory is not held while the request waits.
        releaseHeavyWork(request);
        const finished = await transcriptions.finished(caller.userId, submitted, request.signal);
        const granularities = [body["timestamp_granularities[]"] ?? [], body.timestamp_granularities ?? []].flat();
        const format: ResponseFormat = body.response_format ?? "json";
        const answer = render(format, { ...finished, language: submitted.language, granularities });
        return new Response(answer.body, { headers: { "content-type": answer.contentType, "x-task-id": String(submitted.taskId) } });
      },
      {
        body: transcriptionForm,
        detail: transcriptionDetail,
      },
    )
    .get(
      "/v1/models",
      ({ caller }) => {
        apiKeyOnly(caller);
        return { object: "list" as const, data: servedModels(offer) };
      },
      {
        response: { 200: modelList },
        detail: modelsDetail,
      },
    )
    .get(
      "/v1/models/:model",
      ({ caller, params }) => {
        apiKeyOnly(caller);
        return servedModel(params.model, offer);
      },
      {
        params: modelParams,
        response: { 200: modelSchema },
        detail: modelDetail,
      },
    );
}
