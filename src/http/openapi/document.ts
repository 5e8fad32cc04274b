import { normalizeSchema, type JsonSchema } from "./normalize-schema.ts";
import { errorResponses, errorSchemas, openAiErrorSchema, rateLimitHeaders, type ErrorStatus } from "./errors.ts";
import { isOpenAiPath } from "../openai-errors.ts";

/** What the builder reads of an Elysia route (`app.routes`): its method, path and the hooks' schemas and detail. */
export type RouteShape = {
  method: string;
  path: string;
  hooks: {
    body?: unknown;
    query?: unknown;
    params?: unknown;
    response?: unknown;
    detail?: { hide?: boolean; tags?: string[]; summary?: string; description?: string; security?: unknown[]; responses?: Record<string, unknown> } & Record<
      string,
      unknown
    >;
  };
};

export type OpenApiOptions = {
  info: { title: string; version: string; description: string; contact?: { name: string; url: string } };
  servers: { url: string; description?: string }[];
  tags: { name: string; description: string }[];
  /** Schemas that get a name in `components.schemas`; every place they appear becomes a `$ref`. */
  named: Record<string, unknown>;
  /** The error statuses an operation answers besides those its shape implies (see errors.ts), by `METHOD /path`. */
  errors: Record<string, ErrorStatus[]>;
  /**
   * Bounds a service checks itself (with its own 422 message) that the parameter's schema leaves out, by
   * `METHOD /path` and parameter name: the document states them all the same.
   */
  parameterBounds?: Record<string, Record<string, JsonSchema>>;
  /** Request media types where a body is not JSON alone, by `METHOD /path`: all of them (a file upload takes multipart). */
  bodyMediaTypes?: Record<string, string[]>;
  /**
   * A cookie scheme (the web app's session) that every operation secured by `bearer` accepts as well, but the
   * OpenAI-compatible ones (API keys only); such an operation that changes something also answers 403 to a request
   * with the cookie from another site's page.
   */
  sessionScheme?: { name: string; scheme: JsonSchema };
};

type Document = JsonSchema & { paths: Record<string, Record<string, JsonSchema>> };

/**
 * The OpenAPI 3.1 document of the API, built from the same route schemas that validate requests
 * (Elysia's `app.routes`), normalised to JSON Schema 2020-12 (normalize-schema.ts): named component
 * schemas, every status each operation answers with its schema (the one error shape of spec section 7),
 * file responses with their media types, one operationId per operation.
 */
export function buildOpenApi(routes: readonly RouteShape[], options: OpenApiOptions): Document {
  const names = new Map<string, string>();
  // OpenAI's error shape only where some route answers in it.
  const openAiRoutes = routes.some((route) => isOpenAiPath(route.path) && route.hooks.detail?.hide !== true);
  const components: Record<string, JsonSchema> = { ...errorSchemas, ...(openAiRoutes && { OpenAIError: openAiErrorSchema }) };
  for (const [name, schema] of Object.entries(options.named)) {
    const normalized = normalizeSchema(schema);
    components[name] = normalized;
    names.set(canonical(normalized), name);
  }
  const ref = (schema: JsonSchema, top = true): JsonSchema => {
    const name = top ? undefined : names.get(canonical(schema));
    if (name) return { $ref: `#/components/schemas/${name}` };
    const out: JsonSchema = {};
    for (const [key, value] of Object.entries(schema)) {
      if (key === "properties" && value && typeof value === "object")
        out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, ref(v as JsonSchema, false)]));
      else if ((key === "items" || key === "additionalProperties") && value && typeof value === "object") out[key] = ref(value as JsonSchema, false);
      else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) out[key] = value.map((v) => ref(v as JsonSchema, false));
      else out[key] = value;
    }
    return out;
  };
  /** A schema where an operation uses it: its component when it is a named one, else with named parts referenced. */
  const named = (schema: JsonSchema): JsonSchema => ref(schema, false);
  // Components refer to each other too (a task list's items are TaskListItem).
  for (const [name, schema] of Object.entries(components)) components[name] = ref(schema);

  const paths: Document["paths"] = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const method = route.method.toLowerCase();
    const detail = route.hooks.detail ?? {};
    if (detail.hide === true || !["get", "post", "put", "patch", "delete"].includes(method)) continue;
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const key = `${route.method} ${path}`;
    const operation: JsonSchema = {};
    const operationId = (detail.operationId as string | undefined) ?? defaultOperationId(route.method, path);
    if (operationIds.has(operationId)) throw new Error(`operationId ${operationId} twice (${key})`);
    operationIds.add(operationId);
    operation.operationId = operationId;
    if (detail.tags) operation.tags = detail.tags;
    operation.summary = detail.summary ?? key;
    operation.description = detail.description ?? `${operation.summary}.`;
    const session = options.sessionScheme?.name;
    const takesSession = session !== undefined && !isOpenAiPath(path) && Array.isArray(detail.security) && detail.security.some((s) => isScheme(s, "bearer"));
    if (detail.security) operation.security = takesSession ? [...detail.security, { [session]: [] }] : detail.security;

    const bounds = options.parameterBounds?.[key] ?? {};
    const parameters = [...parametersOf(route.hooks.params, "path"), ...parametersOf(route.hooks.query, "query")].map((p) => ({
      ...p,
      schema: named({ ...(p.schema as JsonSchema), ...bounds[p.name] }),
    }));
    // Header parameters are described in OpenAPI terms where they are read (the Idempotency-Key macro's detail).
    for (const parameter of (detail.parameters as (typeof parameters)[number][] | undefined) ?? []) parameters.push(parameter);
    for (const name of path.match(/\{(\w+)\}/g) ?? []) {
      const bare = name.slice(1, -1);
      if (!parameters.some((p) => p.in === "path" && p.name === bare)) parameters.push({ name: bare, in: "path", required: true, schema: { type: "string" } });
    }
    if (parameters.length > 0) operation.parameters = parameters;

    if (route.hooks.body !== undefined) {
      const schema = named(normalizeSchema(route.hooks.body));
      const types = options.bodyMediaTypes?.[key] ?? ["application/json"];
      operation.requestBody = { required: !isOptionalBody(route.hooks.body), content: Object.fromEntries(types.map((type) => [type, { schema }])) };
    }

    const responses: Record<string, JsonSchema> = {};
    const declared = responseSchemas(route.hooks.response);
    for (const [status, schema] of Object.entries(declared)) {
      const normalized = normalizeSchema(schema);
      const empty = status === "204" || ["void", "undefined"].includes(normalized.type as string);
      responses[status] = empty
        ? { description: describeStatus(status) }
        : { description: describeStatus(status), content: { "application/json": { schema: named(normalized) } } };
    }
    // Routes whose answers are files or several media types describe them in OpenAPI terms in `detail.responses`.
    for (const [status, response] of Object.entries(detail.responses ?? {})) responses[status] = normalizeResponse(response as JsonSchema);
    if (Object.keys(responses).length === 0) responses["200"] = { description: "OK" };
    const statuses = new Set<ErrorStatus>(options.errors[key] ?? []);
    const secured = Array.isArray(detail.security) && detail.security.length > 0;
    if (secured) {
      statuses.add(401);
      statuses.add(429);
      const withCookie = session !== undefined && (takesSession || (detail.security as unknown[]).some((s) => isScheme(s, session)));
      if (withCookie && route.method !== "GET") statuses.add(403);
      for (const [status, response] of Object.entries(responses))
        if (status.startsWith("2")) responses[status] = { ...response, headers: { ...(response.headers as object | undefined), ...rateLimitHeaders } };
    }
    // Headers some 2xx answers carry besides (Idempotent-Replayed), described where they are set.
    const responseHeaders = detail.responseHeaders as Record<string, JsonSchema> | undefined;
    if (responseHeaders)
      for (const [status, response] of Object.entries(responses))
        if (status.startsWith("2")) responses[status] = { ...response, headers: { ...(response.headers as object | undefined), ...responseHeaders } };
    if (route.hooks.body !== undefined) {
      statuses.add(400);
      statuses.add(413);
      statuses.add(422);
    }
    if (route.hooks.query !== undefined || route.hooks.params !== undefined) statuses.add(422);
    statuses.add(500);
    // OpenAI answers what fails validation with 400, as the `/v1` routes do.
    const openAi = isOpenAiPath(path);
    if (openAi && statuses.delete(422)) statuses.add(400);
    Object.assign(
      responses,
      errorResponses(
        [...statuses].filter((s) => responses[String(s)] === undefined),
        openAi ? "openai" : "scribe",
      ),
    );
    operation.responses = Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b)));
    paths[path] ??= {};
    paths[path]![method] = operation;
  }
  return {
    openapi: "3.1.0",
    info: options.info,
    servers: options.servers,
    tags: options.tags,
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An access token (login) or an API key." },
        ...(options.sessionScheme && { [options.sessionScheme.name]: options.sessionScheme.scheme }),
      },
    },
  } as Document;
}

/** A security requirement that names exactly this scheme (`{bearer: []}`). */
function isScheme(requirement: unknown, name: string): boolean {
  return typeof requirement === "object" && requirement !== null && Object.keys(requirement).length === 1 && name in requirement;
}

function parametersOf(schema: unknown, where: "path" | "query"): { name: string; in: string; required: boolean; description?: string; schema: JsonSchema }[] {
  if (!schema || typeof schema !== "object") return [];
  const normalized = normalizeSchema(schema);
  const required = new Set((normalized.required as string[] | undefined) ?? []);
  return Object.entries((normalized.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: { name: string; in: string; required: boolean; description?: string; schema: JsonSchema } = {
      name,
      in: where,
      required: where === "path" || required.has(name),
      schema: rest,
    };
    if (typeof description === "string") parameter.description = description;
    return parameter;
  });
}

/** `response` is one schema (the 200) or a map of status to schema. */
function responseSchemas(response: unknown): Record<string, unknown> {
  if (!response || typeof response !== "object") return {};
  const keys = Object.keys(response);
  if (keys.length > 0 && keys.every((k) => /^\d{3}$/.test(k))) return response as Record<string, unknown>;
  return { "200": response };
}

function isOptionalBody(body: unknown): boolean {
  const schema = body as JsonSchema;
  return Array.isArray(schema.anyOf) && (schema.anyOf as JsonSchema[]).some((m) => m.type === "undefined" || m.type === "null");
}

function describeStatus(status: string): string {
  return { "200": "OK", "201": "Created", "202": "Accepted", "204": "No Content", "206": "Partial Content" }[status] ?? `Status ${status}`;
}

function defaultOperationId(method: string, path: string): string {
  const words = path
    .split("/")
    .filter((part) => part !== "" && part !== "api")
    .map((part) => (part.startsWith("{") ? `By${capitalize(part.slice(1, -1))}` : part.split("-").map(capitalize).join("")));
  return method.toLowerCase() + words.join("");
}

const capitalize = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** Key order does not matter: two schemas are the same when they say the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value)
      .filter((k) => k !== "description" && k !== "title")
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as JsonSchema)[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
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
