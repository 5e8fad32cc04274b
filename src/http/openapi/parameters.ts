import { normalizeSchema, type JsonSchema } from "./normalize-schema.ts";
import type { RouteShape } from "./route-shape.ts";

export type Parameter = { name: string; in: string; required: boolean; description?: string; schema: JsonSchema };

/**
 * An operation's parameters: its path and query schemas' properties, with the bounds the service checks itself
 * (`bounds`, by name); the header parameters its detail describes; and any path placeholder no schema names.
 */
export function operationParameters(
  route: RouteShape,
  path: string,
  bounds: Record<string, JsonSchema>,
  referenced: (schema: JsonSchema) => JsonSchema,
): Parameter[] {
  const parameters = [...parametersOf(route.hooks.params, "path"), ...parametersOf(route.hooks.query, "query")].map((p) => ({
    ...p,
    schema: referenced({ ...p.schema, ...bounds[p.name] }),
  }));
  // Header parameters are described in OpenAPI terms where they are read (the Idempotency-Key macro's detail).
  for (const parameter of (route.hooks.detail?.parameters as Parameter[] | undefined) ?? []) parameters.push(parameter);
  for (const name of path.match(/\{(\w+)\}/g) ?? []) {
    const bare = name.slice(1, -1);
    if (!parameters.some((p) => p.in === "path" && p.name === bare)) parameters.push({ name: bare, in: "path", required: true, schema: { type: "string" } });
  }
  return parameters;
}

function parametersOf(schema: unknown, where: "path" | "query"): Parameter[] {
  if (!schema || typeof schema !== "object") return [];
  const normalized = normalizeSchema(schema);
  const required = new Set((normalized.required as string[] | undefined) ?? []);
  return Object.entries((normalized.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
    const { description, ...rest } = property;
    const parameter: Parameter = { name, in: where, required: where === "path" || required.has(name), schema: rest };
    if (typeof description === "string") parameter.description = description;
    return parameter;
  });
}
