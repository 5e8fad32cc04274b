import { normalizeSchema, type JsonSchema } from "./normalize-schema.ts";

/** The document's component schemas, and what turns a schema into one that refers to them. */
export type Components = {
  schemas: Record<string, JsonSchema>;
  /** A schema where an operation uses it: its component when it is a named one, else with named parts referenced. */
  referenced: (schema: JsonSchema) => JsonSchema;
};

/**
 * Names the `named` schemas (normalised) besides the `fixed` ones (the error shapes): every place a schema says
 * the same as a named one (descriptions aside) becomes a `$ref` to it, components included (a task list's items
 * are TaskListItem).
 */
export function componentRefs(named: Record<string, unknown>, fixed: Record<string, JsonSchema>): Components {
  const names = new Map<string, string>();
  const schemas: Record<string, JsonSchema> = { ...fixed };
  for (const [name, schema] of Object.entries(named)) {
    const normalized = normalizeSchema(schema);
    schemas[name] = normalized;
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
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = ref(schema);
  return { schemas, referenced: (schema) => ref(schema, false) };
}

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
