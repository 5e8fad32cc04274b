/**
 * Turns a TypeBox/Elysia schema as routes declare it into plain JSON Schema 2020-12, as OpenAPI 3.1
 * wants it and third-party tools read it:
 * - Elysia's coercing `t.Integer`/`t.Numeric` (`anyOf [string(format integer|numeric), integer|number]`,
 *   meant for path and query strings) becomes `integer`/`number`: what the service sends and takes in JSON;
 * - `anyOf [X, null]` becomes `X` with `"null"` in its `type`, and 3.0's `nullable` goes;
 * - an `anyOf` of string constants (t.Union of literals) becomes one `enum`;
 * - `patternProperties` of a record becomes `additionalProperties`; Elysia's own keywords (`error`,
 *   `default` on coercions) go, and so does our `tooLong` (a 422's words, src/http/validation-messages.ts);
 * - a string property named like a timestamp (`*_at`, `time`) gets `format: date-time`;
 * - `documentedType: "integer"` (a query's integer checked as text) is an integer;
 * - `documentedDefault` becomes `default`: a value the service assumes when a query parameter is absent, which
 *   Elysia must not fill in itself (it would then decode, twice, a parameter the client never sent).
 */
export type JsonSchema = { [key: string]: unknown };

const dropped = new Set(["error", "nullable", "errorMessage", "$id", "tooLong", "documentedDefault", "documentedType"]);
const timestampName = /(^|_)at$|^time$/;

export function normalizeSchema(schema: unknown, propertyName?: string): JsonSchema {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return {};
  const input = schema as JsonSchema;
  const normalized = normalizedOf(input, propertyName);
  return input.documentedDefault === undefined ? normalized : { ...normalized, default: input.documentedDefault };
}

function normalizedOf(input: JsonSchema, propertyName: string | undefined): JsonSchema {
  // Text checked as an integer (src/http/text-integer.ts): what a client sends is an integer.
  if (input.documentedType === "integer") return withDescription({ type: "integer" }, input);
  const coerced = coercedNumber(input);
  if (coerced) return withDescription(coerced, input);

  if (Array.isArray(input.anyOf)) {
    const members = (input.anyOf as unknown[]).map((member) => normalizeSchema(member, propertyName));
    const nonNull = members.filter((m) => m.type !== "null");
    const hasNull = nonNull.length < members.length;
    const base = rest(input, ["anyOf"]);
    const constants = nonNull.every((m) => "const" in m && typeof m.const === "string");
    if (constants && nonNull.length > 0) {
      return clean({ ...base, type: hasNull ? ["string", "null"] : "string", enum: [...nonNull.map((m) => m.const), ...(hasNull ? [null] : [])] });
    }
    if (nonNull.length === 1) {
      const only = nonNull[0]!;
      if (!hasNull) return clean({ ...base, ...only });
      // A nullable enum (t.Nullable of a union of literals) lists null among its values too, or null would fail the enum.
      const nullable = Array.isArray(only.enum) ? { enum: [...only.enum, null] } : {};
      if (typeof only.type === "string" && !("$ref" in only)) return clean({ ...base, ...only, type: [only.type, "null"], ...nullable });
      return clean({ ...base, anyOf: [only, { type: "null" }] });
    }
    return clean({ ...base, anyOf: hasNull ? [...nonNull, { type: "null" }] : nonNull });
  }

  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(input)) {
    if (dropped.has(key)) continue;
    if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, property]) => [name, normalizeSchema(property, name)]));
    } else if (key === "items" || key === "additionalProperties" || key === "not") {
      out[key] = typeof value === "object" && value !== null ? normalizeSchema(value) : value;
    } else if (key === "patternProperties" && value && typeof value === "object") {
      const [only] = Object.values(value as JsonSchema);
      out.additionalProperties = normalizeSchema(only);
    } else if (key === "allOf" || key === "oneOf") {
      out[key] = (value as unknown[]).map((member) => normalizeSchema(member));
    } else {
      out[key] = value;
    }
  }
  // OpenAPI 3.0's `nullable` (Elysia's types for detail.responses speak 3.0) is a null in the type in 3.1.
  if (input.nullable === true && typeof out.type === "string") out.type = [out.type, "null"];
  if (out.type === "string" && out.format === undefined && propertyName !== undefined && timestampName.test(propertyName)) out.format = "date-time";
  // A File (multipart upload) is binary content in 3.1.
  if (out.type === "string" && out.format === "binary") {
    delete out.format;
    delete out.default;
    out.contentMediaType = "application/octet-stream";
  }
  return clean(out);
}

/** Elysia's t.Integer / t.Numeric: a string of digits or a number, which JSON carries as a number. */
function coercedNumber(input: JsonSchema): JsonSchema | null {
  const members = input.anyOf;
  if (!Array.isArray(members) || members.length !== 2) return null;
  const [text, number] = members as JsonSchema[];
  if (text?.type !== "string" || (text.format !== "integer" && text.format !== "numeric")) return null;
  if (number?.type !== "integer" && number?.type !== "number") return null;
  return rest(number, ["default"]);
}

function withDescription(schema: JsonSchema, from: JsonSchema): JsonSchema {
  return typeof from.description === "string" ? { ...schema, description: from.description } : schema;
}

function rest(input: JsonSchema, without: string[]): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(input)) if (!without.includes(key) && !dropped.has(key)) out[key] = value;
  return out;
}

function clean(schema: JsonSchema): JsonSchema {
  for (const key of dropped) delete schema[key];
  return schema;
}
