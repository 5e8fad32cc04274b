/**
 * The `Idempotency-Key` request header (IETF draft-ietf-httpapi-idempotency-key-header): its value, and the
 * fingerprint of the request it came with. Pure: no store, no clock.
 */

/** The header's name as the draft spells it: the field named in a 422's `errors`, and in the OpenAPI document. */
export const idempotencyKeyHeader = "Idempotency-Key";

/** Longer keys are refused (422): a UUID is 36 characters, and the store keeps a hash of the key, not the key. */
export const maxIdempotencyKeyLength = 255;

export type ParsedIdempotencyKey = { key: string } | { problem: string };

/** RFC 8941 3.3.3: what may stand unescaped in a Structured Field String (printable ASCII but `"` and `\`). */
const unescaped = (code: number) => code >= 0x20 && code <= 0x7e && code !== 0x22 && code !== 0x5c;

/**
 * The draft defines the field as a Structured Field String, so its examples send it quoted
 * (`Idempotency-Key: "8e03978e-40d5-43e8-bc93-6894a57f9324"`); most clients (Stripe's among them) send it
 * bare. Both are taken: a value that opens with `"` is read as a String (with its `\"` and `\\` escapes,
 * parameters after it ignored as RFC 8941 asks), any other value is the key as it is. Either way the key
 * is 1 to 255 printable ASCII characters, so `"abc"` and `abc` are the same key.
 */
export function parseIdempotencyKey(value: string): ParsedIdempotencyKey {
  const text = value.trim();
  const key = text.startsWith('"') ? structuredString(text) : bare(text);
  if (typeof key !== "string") return key;
  if (key.length === 0) return { problem: `The ${idempotencyKeyHeader} must not be empty.` };
  if (key.length > maxIdempotencyKeyLength) return { problem: `The ${idempotencyKeyHeader} must be at most ${maxIdempotencyKeyLength} characters.` };
  return { key };
}

function bare(text: string): string | { problem: string } {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code > 0x7e) return { problem: `The ${idempotencyKeyHeader} must be printable ASCII characters.` };
  }
  return text;
}

function structuredString(text: string): string | { problem: string } {
  const malformed = { problem: `The ${idempotencyKeyHeader} opens with a quote but is not a valid quoted string (RFC 8941).` };
  let key = "";
  for (let i = 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c) {
      const next = text[++i];
      if (next !== '"' && next !== "\\") return malformed;
      key += next;
    } else if (code === 0x22) {
      // Parameters (`;name=value`) may follow an Item; the draft defines none, so they are ignored.
      const rest = text.slice(i + 1).trimStart();
      return rest === "" || rest.startsWith(";") ? key : malformed;
    } else if (unescaped(code)) key += text[i];
    else return malformed;
  }
  return malformed;
}

/**
 * What makes two requests "the same request" for a key: method, path and body. The body is compared as
 * JSON values (key order and white space aside), since clients that retry re-serialize what they send.
 */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  const hasher = new Bun.CryptoHasher("sha256");
  hasher.update(`${method} ${path}\n`);
  hasher.update(body === undefined ? "" : canonicalJson(body));
  return hasher.digest("hex");
}

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` give the same text. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i > 0 ? "," : "") + canonicalJson(value[i] ?? null);
    return `${out}]`;
  }
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    let out = "{";
    let first = true;
    for (const key of Object.keys(record).sort()) {
      const item = record[key];
      if (item === undefined) continue;
      out += `${first ? "" : ","}${JSON.stringify(key)}:${canonicalJson(item)}`;
      first = false;
    }
    return `${out}}`;
  }
  return JSON.stringify(value) ?? "null";
}
