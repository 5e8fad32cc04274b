import type { JsonSchema } from "./normalize-schema.ts";

/** The statuses an operation may answer with the one error shape of spec section 7. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 416 | 422 | 429 | 500 | 502 | 503;

/** Spec section 7: every error is JSON with `message`; a 422 adds `errors`, field → messages. */
export const errorSchemas: Record<string, JsonSchema> = {
  Error: {
    type: "object",
    description: "Every error answer (spec section 7).",
    properties: { message: { type: "string" } },
    required: ["message"],
  },
  ValidationError: {
    type: "object",
    description: "A 422: what was wrong, by field.",
    properties: {
      message: { type: "string" },
      errors: { type: "object", additionalProperties: { type: "array", items: { type: "string" } } },
    },
    required: ["message", "errors"],
  },
};

/** OpenAI's error shape, which the OpenAI-compatible `/v1` routes answer in (src/http/openai-errors.ts). */
export const openAiErrorSchema: JsonSchema = {
  type: "object",
  description: "Every error answer of the OpenAI-compatible routes (`/v1`), in OpenAI's shape.",
  properties: {
    error: {
      type: "object",
      properties: {
        message: { type: "string" },
        type: {
          type: "string",
          enum: ["invalid_request_error", "authentication_error", "permission_error", "not_found_error", "rate_limit_error", "server_error"],
        },
        param: { type: ["string", "null"] },
        code: { type: ["string", "null"] },
      },
      required: ["message", "type", "param", "code"],
    },
  },
  required: ["error"],
};

const meaning: Record<ErrorStatus, string> = {
  400: "The body could not be read: not JSON (or the form encoding the endpoint takes), or not UTF-8.",
  401:
    "Not authenticated: the token, key or session cookie is missing, unknown, expired " +
    "(a token unused for TOKEN_TTL_DAYS, a session past SESSION_DAYS) or revoked.",
  403: "Forbidden, or a plan limit is exceeded (or, with the web app's session cookie, a change sent from another site's page).",
  404: "Not found (another user's resource is not found either).",
  409: "Conflict: the resource is being changed by another request; repeat in a moment.",
  412: "Precondition failed: the resource changed since the version `If-Match` names; read it again and make the change on what it says now.",
  413: "The body is larger than this endpoint takes.",
  416: "Range not satisfiable.",
  422: "Validation failed.",
  429: "Too many requests: the rate limit, the login throttle or 3 tasks in progress.",
  500: "Internal server error.",
  502: "An upstream service (the identity provider) failed.",
  503: "Not ready: the service is starting or a dependency is down.",
};

const retryAfter = {
  "Retry-After": {
    description: "Seconds to wait before trying again (rate limits and the login throttle; not the 3-task limit).",
    schema: { type: "integer" },
  },
};

/** On every answer to an authenticated request: what is left of the caller's per-minute allowance. */
export const rateLimitHeaders = {
  "X-RateLimit-Remaining": { description: "Requests left to this credential in the current minute.", schema: { type: "integer" } },
};

/** `shape`: spec section 7's (`Error`, `ValidationError`), or OpenAI's on the `/v1` routes (`OpenAIError`). */
export function errorResponses(statuses: readonly ErrorStatus[], shape: "scribe" | "openai" = "scribe"): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  for (const status of statuses) {
    const name = shape === "openai" ? "OpenAIError" : status === 422 ? "ValidationError" : "Error";
    const schema = { $ref: `#/components/schemas/${name}` };
    const response: JsonSchema = { description: meaning[status], content: { "application/json": { schema } } };
    if (status === 429) response.headers = retryAfter;
    out[String(status)] = response;
  }
  return out;
}
