import { normalizeSchema, type JsonSchema } from "./normalize-schema.ts";
import type { OpenApiOptions } from "./openapi-options.ts";
import type { RouteShape } from "./route-shape.ts";
import { operationParameters } from "./parameters.ts";
import { operationResponses } from "./operation-responses.ts";
import { isOpenAiPath } from "../openai-errors.ts";

export type Operation = JsonSchema & { operationId: string };

/**
 * One route as an OpenAPI operation (`path` in OpenAPI's `{name}` form): its id, tags and words, who may call it,
 * its parameters and body, and every status it answers.
 */
export function operationOf(route: RouteShape, path: string, options: OpenApiOptions, referenced: (schema: JsonSchema) => JsonSchema): Operation {
  const detail = route.hooks.detail ?? {};
  const key = `${route.method} ${path}`;
  const summary = detail.summary ?? key;
  const operation: Operation = {
    operationId: (detail.operationId as string | undefined) ?? defaultOperationId(route.method, path),
    ...(detail.tags && { tags: detail.tags }),
    summary,
    description: detail.description ?? `${summary}.`,
  };
  const session = options.sessionScheme?.name;
  const security: unknown[] = Array.isArray(detail.security) ? detail.security : [];
  const takesSession = session !== undefined && !isOpenAiPath(path) && security.some((s) => isScheme(s, "bearer"));
  if (detail.security) operation.security = takesSession ? [...security, { [session]: [] }] : detail.security;

  const parameters = operationParameters(route, path, options.parameterBounds?.[key] ?? {}, referenced);
  if (parameters.length > 0) operation.parameters = parameters;
  if (route.hooks.body !== undefined) {
    const schema = referenced(normalizeSchema(route.hooks.body));
    const types = options.bodyMediaTypes?.[key] ?? ["application/json"];
    operation.requestBody = { required: !isOptionalBody(route.hooks.body), content: Object.fromEntries(types.map((type) => [type, { schema }])) };
  }

  const secured = security.length > 0;
  const withCookie = session !== undefined && (takesSession || security.some((s) => isScheme(s, session)));
  const traits = { errors: options.errors[key] ?? [], secured, crossSiteCheck: secured && withCookie && route.method !== "GET", openAi: isOpenAiPath(path) };
  operation.responses = operationResponses(route, traits, referenced);
  return operation;
}

/** A security requirement that names exactly this scheme (`{bearer: []}`). */
function isScheme(requirement: unknown, name: string): boolean {
  return typeof requirement === "object" && requirement !== null && Object.keys(requirement).length === 1 && name in requirement;
}

function isOptionalBody(body: unknown): boolean {
  const schema = body as JsonSchema;
  return Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some((m) => m.type === "undefined" || m.type === "null");
}

function defaultOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((part) => part !== "" && part !== "api")
    .map((part) => (part.startsWith("{") ? `By${capitalize(part.slice(1, -1))}` : part.split("-").map(capitalize).join("")));
  return method.toLowerCase() + words.join("");
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);
