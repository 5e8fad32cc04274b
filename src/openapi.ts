import type { Config } from "./config.ts";
import type { OpenApiOptions } from "./http/openapi/document.ts";
import { apiKeyView, createdApiKey, profileResponse, sessionResponse, tokenResponse, userResponse } from "./accounts/schemas.ts";
import { sessionCookieName } from "./accounts/session-cookie.ts";
import { checkoutOptions } from "./billing/routes.ts";
import { folderListSchema, folderSchema } from "./folders/routes.ts";
import { notificationView } from "./notifications/routes.ts";
import { createdTask, taskDetailSchema, taskListItemSchema, taskListSchema } from "./tasks/schemas.ts";
import { segmentSchema } from "./tasks/segments.ts";
import { completedSchema, formatsSchema, sessionSchema, signedPartSchema } from "./uploads/schemas.ts";
import { createdEndpoint, deliveryView, endpointView, testResult } from "./webhooks/schemas.ts";
import { modelList, transcriptionJson, transcriptionVerbose } from "./openai-compat/schemas.ts";
import { maxQueryLength } from "./search/query.ts";

/**
 * What the OpenAPI document says beyond the routes' own schemas: its servers and tags, the names of the
 * shared schemas (components), and the errors each operation answers besides those its shape implies
 * (401 and 429 when authenticated; 400, 413 and 422 with a body; 422 with parameters; 500 always).
 * test/http/openapi.int.test.ts checks every operation is listed here, so a new route is thought about.
 */
export function openApiOptions(config: Config): OpenApiOptions {
  return {
    info: {
      title: "Scribe transcription API",
      version: "0.1.0",
      contact: { name: "Scribe", url: "https://github.com/scribe/scribe" },
      description:
        "Timed transcripts, summaries and mind maps from audio and video. Errors are JSON with `message`; a 422 adds `errors` keyed by field " +
        "(spec section 7). JSON and text answers of 1 KiB or more are compressed as `Accept-Encoding` allows (gzip, else br); " +
        "downloads and media are sent as they are.",
    },
    servers: [{ url: config.publicUrl, description: "This server (PUBLIC_URL)" }],
    tags,
    named,
    errors: operationErrors,
    parameterBounds,
    sessionScheme,
    bodyMediaTypes: { "PUT /api/user": ["application/json", "multipart/form-data"], "POST /v1/audio/transcriptions": ["multipart/form-data"] },
  };
}

const tags: OpenApiOptions["tags"] = [
  { name: "Health", description: "Liveness of the service." },
  { name: "Auth", description: "Register, log in (password or social) and log out." },
  {
    name: "Session",
    description:
      "The web app's sign-in: an HttpOnly session cookie instead of a token, with its own rate limit (SESSION_RATE_LIMIT_PER_MINUTE), " +
      "accepted by every endpoint that takes a token except the OpenAI-compatible ones.",
  },
  { name: "User", description: "The account: profile, balance, subscription and queue." },
  { name: "API keys", description: "Keys for third-party integrations (paid plans)." },
  { name: "Notifications", description: "The account's notifications." },
  { name: "Checkout", description: "Subscription checkout links." },
  { name: "Payment webhooks", description: "What the payment provider calls, signed." },
  { name: "Sandbox payment provider", description: "The built-in stand-in for a payment provider: its checkout page." },
  { name: "Tasks", description: "Transcription tasks: create, list, read, edit, delete, retry, share, export." },
  { name: "Folders", description: "Folders that organise tasks." },
  { name: "Uploads", description: "Multipart uploads straight to storage; completing one creates its task." },
  { name: "Webhooks", description: "Signed notifications of finished, failed and deleted tasks and ready exports (Standard Webhooks)." },
  { name: "Search", description: "Search inside the caller's transcripts: words, phrases and prefixes, ranked by relevance." },
  {
    name: "OpenAI compatibility",
    description: "OpenAI's transcription endpoint and model list, for OpenAI's SDKs and clients: an API key as the Bearer token, errors in OpenAI's shape.",
  },
];

/** The shared schemas, by the name they get in `components.schemas`. */
const named: OpenApiOptions["named"] = {
  Task: taskDetailSchema,
  TaskListItem: taskListItemSchema,
  TaskList: taskListSchema,
  CreatedTask: createdTask,
  Segment: segmentSchema,
  TokenResponse: tokenResponse,
  Session: sessionResponse,
  User: userResponse,
  Profile: profileResponse,
  ApiKey: apiKeyView,
  CreatedApiKey: createdApiKey,
  Folder: folderSchema,
  FolderList: folderListSchema,
  Notification: notificationView,
  UploadSession: sessionSchema,
  SignedPart: signedPartSchema,
  CompletedUpload: completedSchema,
  UploadFormats: formatsSchema,
  CheckoutOptions: checkoutOptions,
  WebhookEndpoint: endpointView,
  CreatedWebhookEndpoint: createdEndpoint,
  WebhookDelivery: deliveryView,
  WebhookTestResult: testResult,
  OpenAITranscription: transcriptionJson,
  OpenAITranscriptionVerbose: transcriptionVerbose,
  OpenAIModelList: modelList,
};

/** The errors each operation answers besides those its shape implies, by `METHOD /path`. */
const operationErrors: OpenApiOptions["errors"] = {
  "GET /api/health": [],
  "GET /api/ready": [],
  "POST /api/register": [429],
  "POST /api/login": [401, 429],
  "POST /api/auth/social-login": [401, 502],
  "POST /api/logout": [403],
  "POST /api/session": [401, 403, 429],
  "POST /api/session/register": [403, 429],
  "POST /api/session/social": [403, 502],
  "GET /api/session": [],
  "DELETE /api/session": [403],
  "GET /api/user": [],
  "PUT /api/user": [],
  "DELETE /api/user": [403],
  "GET /api/user/export": [403],
  "GET /avatars/{userId}/{file}": [404],
  "GET /api/api-keys": [403],
  "POST /api/api-keys": [403],
  "DELETE /api/api-keys/{id}": [403, 404],
  "GET /api/notifications": [],
  "POST /api/notifications/mark-all-as-read": [],
  "GET /api/checkout/{plan}": [404],
  "POST /api/webhooks/sandbox": [400, 401],
  "GET /sandbox/checkout/{reference}": [404],
  "POST /sandbox/checkout/{reference}/complete": [404, 409],
  "POST /api/tasks": [403, 409, 429],
  "GET /api/tasks": [],
  "GET /api/search": [],
  "DELETE /api/tasks/bulk": [],
  "PATCH /api/tasks/bulk/move": [],
  "GET /api/tasks/{id}": [404],
  "PATCH /api/tasks/{id}": [404, 412],
  "DELETE /api/tasks/{id}": [404, 412],
  "PATCH /api/tasks/{id}/retry": [404, 412, 429],
  "GET /api/tasks/{id}/share-url": [404],
  "DELETE /api/tasks/{id}/share-url": [404],
  "GET /share/tasks/{id}": [404],
  "GET /api/tasks/{id}/history": [404],
  "GET /api/folders": [],
  "POST /api/folders": [409],
  "PATCH /api/folders/{name}": [404],
  "DELETE /api/folders/{name}": [404],
  "GET /api/tasks/{id}/download/{format}": [404, 409],
  "GET /api/uploads/formats": [],
  "POST /api/uploads/sign": [403],
  "POST /api/uploads/sign-part": [404],
  "POST /api/uploads/complete": [403, 404, 409],
  "POST /api/uploads/abort": [404],
  "GET /api/tasks/{id}/audio": [404, 416],
  "GET /api/tasks/{id}/audio-url": [404],
  "GET /api/tasks/{id}/audio/signed": [403, 404, 416],
  "GET /share/tasks/{id}/audio": [403, 404, 416],
  "GET /api/tasks/{id}/refresh-summary": [404, 502],
  "GET /api/tasks/{id}/events": [404],
  "GET /api/transcription/engines": [],
  "GET /api/webhooks": [],
  "POST /api/webhooks": [409],
  "DELETE /api/webhooks/{id}": [404],
  "GET /api/webhooks/{id}/deliveries": [404],
  "POST /api/webhooks/{id}/test": [404],
  "POST /api/webhooks/{id}/enable": [404],
  "POST /v1/audio/transcriptions": [400, 403, 404, 429, 500],
  "GET /v1/models": [403],
  "GET /v1/models/{model}": [403, 404],
  // Refusals come as `error` events on the upgraded socket (src/live/routes.ts); only a plain GET is answered over HTTP (426).
  "GET /v1/realtime": [],
};

const parameterBounds: OpenApiOptions["parameterBounds"] = {
  "GET /api/tasks": { page: { minimum: 1, maximum: 1_000_000 }, per_page: { minimum: 1, maximum: 100 } },
  "GET /api/search": { q: { minLength: 1, maxLength: maxQueryLength }, page: { minimum: 1, maximum: 1_000_000 }, per_page: { minimum: 1, maximum: 100 } },
};

const sessionScheme: OpenApiOptions["sessionScheme"] = {
  name: "session",
  scheme: {
    type: "apiKey",
    in: "cookie",
    name: sessionCookieName,
    description:
      "The web app's sign-in (POST /api/session), HttpOnly and SameSite=Strict; " +
      "requests that change something must come from this service's own pages (Origin). SESSION_RATE_LIMIT_PER_MINUTE requests a minute per session.",
  },
};
