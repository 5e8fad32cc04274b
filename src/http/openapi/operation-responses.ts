import { normalizeSchema, type JsonSchema } from "./normalize-schema.ts";
import { errorResponses, rateLimitHeaders, type ErrorStatus } from "./errors.ts";
import type { RouteShape } from "./route-shape.ts";

/** What an operation's shape says about its errors besides its schemas. */
export type ResponseTraits = {
  /** The statuses the options list for it (src/openapi.ts). */
  errors: ErrorStatus[];
  /** Authenticated: 401 and 429, and rate-limit headers on its answers. */
  secured: boolean;
  /** A change that takes the session cookie: 403 to a request with it from another site's page. */
  crossSiteCheck: boolean;
  /** OpenAI-compatible: errors in OpenAI's shape, and 400 where the others answer 422. */
  openAi: boolean;
};

/**
 * Every status an operation answers, sorted: the ones its response schemas (or its detail, for files) declare,
 * and the errors in the one error shape of spec section 7 (OpenAI's on `/v1`).
 */
export function operationResponses(route: RouteShape, traits: ResponseTraits, referenced: (schema: JsonSchema) => JsonSchema): Record<string, JsonSchema> {
  let responses = declaredResponses(route, referenced);
  if (traits.secured) responses = withSuccessHeaders(responses, rateLimitHeaders);
  // Headers some 2xx answers carry besides (Idempotent-Replayed), described where they are set.
  const responseHeaders = route.hooks.detail?.responseHeaders as Record<string, JsonSchema> | undefined;
  if (responseHeaders) responses = withSuccessHeaders(responses, responseHeaders);
  const statuses = impliedErrors(route, traits);
  const missing = [...statuses].filter((s) => responses[String(s)] === undefined);
  Object.assign(responses, errorResponses(missing, traits.openAi ? "openai" : "scribe"));
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
}

function declaredResponses(route: RouteShape, referenced: (schema: JsonSchema) => JsonSchema): Record<string, JsonSchema> {
  const responses: Record<string, JsonSchema> = {};
  for (const [status, schema] of Object.entries(responseSchemas(route.hooks.response))) {
    const normalized = normalizeSchema(schema);
    const empty = status === "204" || ["void", "undefined"].includes(normalized.type as string);
    responses[status] = empty
      ? { description: describeStatus(status) }
      : { description: describeStatus(status), content: { "application/json": { schema: referenced(normalized) } } };
  }
  // Routes whose answers are files or several media types describe them in OpenAPI terms in `detail.responses`.
  for (const [status, response] of Object.entries(route.hooks.detail?.responses ?? {})) responses[status] = normalizeResponse(response as JsonSchema);
  if (Object.keys(responses).length === 0) responses["200"] = { description: "OK" };
  return responses;
}

function impliedErrors(route: RouteShape, traits: ResponseTraits): Set<ErrorStatus> {
  const statuses = new Set<ErrorStatus>(traits.errors);
  if (traits.secured) {
    statuses.add(401);
    statuses.add(429);
    if (traits.crossSiteCheck) statuses.add(403);
  }
  if (route.hooks.body !== undefined) {
    statuses.add(400);
    statuses.add(413);
    statuses.add(422);
  }
  if (route.hooks.query !== undefined || route.hooks.params !== undefined) statuses.add(422);
  statuses.add(500);
  // OpenAI answers what fails validation with 400, as the `/v1` routes do.
  if (traits.openAi && statuses.delete(422)) statuses.add(400);
  return statuses;
}

function withSuccessHeaders(responses: Record<string, JsonSchema>, headers: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => [
      status,
      status.startsWith("2") ? { ...response, headers: { ...(response.headers as object | undefined), ...headers } } : response,
    ]),
  );
}

/** `response` is one schema (the 200) or a map of status to schema. */
function responseSchemas(response: unknown): Record<string, unknown> {
  if (!response || typeof response !== "object") return {};
  const keys = Object.keys(response);
  if (keys.length > 0 && keys.every((k) => /^\d{3}$/.test(k))) return response as Record<string, unknown>;
  return { "200": response };
}

function describeStatus(status: string): string {
  return { "200": "OK", "201": "Created", "202": "Accepted", "204": "No Content", "206": "Partial Content" }[status] ?? `Status ${status}`;
}

/** A response object a route wrote itself (detail.responses): its schemas normalised like the rest. */
function normalizeResponse(response: JsonSchema): JsonSchema {
  const content = response.content as Record<string, { schema?: JsonSchema }> | undefined;
  if (!content) return response;
  return {
    ...response,
    content: Object.fromEntries(
      Object.entries(content).map(([type, media]) => [
        type,
        media.schema && !("$ref" in media.schema) ? { ...media, schema: normalizeSchema(media.schema) } : media,
      ]),
    ),
  };
}
