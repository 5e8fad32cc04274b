import type { JsonSchema } from "./normalize-schema.ts";
import { errorSchemas, openAiErrorSchema } from "./errors.ts";
import { componentRefs } from "./component-refs.ts";
import { operationOf } from "./operation.ts";
import type { OpenApiOptions } from "./openapi-options.ts";
import type { RouteShape } from "./route-shape.ts";
import { isOpenAiPath } from "../openai-errors.ts";

export type { OpenApiOptions } from "./openapi-options.ts";
export type { RouteShape } from "./route-shape.ts";

type Document = JsonSchema & { paths: Record<string, Record<string, JsonSchema>> };

const documentedMethods = ["get", "post", "put", "patch", "delete"];

/**
 * The OpenAPI 3.1 document of the API, built from the same route schemas that validate requests
 * (Elysia's `app.routes`), normalised to JSON Schema 2020-12 (normalize-schema.ts): named component
 * schemas, every status each operation answers with its schema (the one error shape of spec section 7),
 * file responses with their media types, one operationId per operation.
 */
export function buildOpenApi(routes: readonly RouteShape[], options: OpenApiOptions): Document {
  // OpenAI's error shape only where some route answers in it.
  const openAiRoutes = routes.some((route) => isOpenAiPath(route.path) && route.hooks.detail?.hide !== true);
  const components = componentRefs(options.named, { ...errorSchemas, ...(openAiRoutes && { OpenAIError: openAiErrorSchema }) });
  const paths: Document["paths"] = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    const method = route.method.toLowerCase();
    if (route.hooks.detail?.hide === true || !documentedMethods.includes(method)) continue;
    const path = route.path.replace(/:(\w+)/g, "{$1}");
    const operation = operationOf(route, path, options, components.referenced);
    if (operationIds.has(operation.operationId)) throw new Error(`operationId ${operation.operationId} twice (${route.method} ${path})`);
    operationIds.add(operation.operationId);
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
      schemas: components.schemas,
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An access token (login) or an API key." },
        ...(options.sessionScheme && { [options.sessionScheme.name]: options.sessionScheme.scheme }),
      },
    },
  };
}
