import { Elysia } from "elysia";
import { ValidationFailedError } from "../core/errors.ts";

/**
 * Text that is not Unicode is refused where it arrives, naming the field (422), instead of being searched for,
 * stored or shown as something else: a query value whose percent escapes are not UTF-8 (`?search=%FF%FE`, which
 * Elysia's parser keeps as the literal `%FF%FE`, and URLSearchParams turns into U+FFFD), and a JSON string with
 * a lone UTF-16 surrogate (`"\ud800"` is valid JSON, but no UTF-8 text can hold it). A JSON body whose bytes are
 * not UTF-8 is refused as it is read (bounded-body-parser.ts).
 */

/** A field as messages name it (validation-messages.ts): `per_page` is "per page". */
const label = (field: string) => field.replaceAll("_", " ");

/**
 * A `%` not followed by two hex digits taken literally, as WHATWG URLs take it ("100%"): decodeURIComponent
 * refuses a stray `%`, and what is left for it to refuse is then the bytes.
 */
const strayPercentsEscaped = (part: string) => part.replace(/%(?![0-9a-fA-F]{2})/g, "%25");

/** A percent-decoded query part is UTF-8. */
function isUtf8Escaped(part: string): boolean {
  try {
    decodeURIComponent(strayPercentsEscaped(part));
    return true;
  } catch {
    return false;
  }
}

/** The field a query names (`search`), or `query` when its name itself is not UTF-8. */
function queryField(rawKey: string): string {
  if (!isUtf8Escaped(rawKey)) return "query";
  return decodeURIComponent(strayPercentsEscaped(rawKey).replaceAll("+", " "));
}

/** A percent escape of a byte that is not ASCII. */
const beyondAscii = /%[89a-fA-F][0-9a-fA-F]/;

/** The first query parameter of `url` whose name or value is not UTF-8 once percent-decoded, or null. Linear in the URL. */
export function badQueryField(url: string): string | null {
  const at = url.indexOf("?");
  if (at < 0) return null;
  const end = url.indexOf("#", at);
  const query = url.slice(at + 1, end < 0 ? undefined : end);
  // Only an escape can spell a byte that is not UTF-8 (Bun has already escaped every character that is not ASCII),
  // and only one of a byte past ASCII (`%20` never is): most queries are done here.
  if (!beyondAscii.test(query)) return null;
  for (const pair of query.split("&")) {
    if (!pair.includes("%")) continue;
    const equals = pair.indexOf("=");
    const rawKey = equals < 0 ? pair : pair.slice(0, equals);
    if (!isUtf8Escaped(rawKey)) return "query";
    if (equals >= 0 && !isUtf8Escaped(pair.slice(equals + 1))) return queryField(rawKey);
  }
  return null;
}

/** The 422 of a query parameter that is not UTF-8. */
export function badQueryError(field: string): ValidationFailedError {
  const message = field === "query" ? "The query string must be UTF-8, percent-encoded." : `The ${label(field)} field must be UTF-8 text, percent-encoded.`;
  return new ValidationFailedError({ [field]: [message] });
}

/**
 * The path (`segments.0.text`) of the first string in a parsed JSON value, or of the object whose key, holds a
 * lone UTF-16 surrogate; `body` for the top level; null when all is well-formed. `isWellFormed` is native and
 * linear; depth is bounded before parsing (json-shape.ts), so the recursion is too.
 */
export function firstBadString(value: unknown, path = ""): string | null {
  if (typeof value === "string") return value.isWellFormed() ? null : path || "body";
  if (typeof value !== "object" || value === null) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = firstBadString(value[i], `${path}${path ? "." : ""}${i}`);
      if (bad !== null) return bad;
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    if (!key.isWellFormed()) return path || "body";
    const bad = firstBadString((value as Record<string, unknown>)[key], `${path}${path ? "." : ""}${key}`);
    if (bad !== null) return bad;
  }
  return null;
}

/** A JSON text from a UTF-8 body can only hold a surrogate as an escape (`\ud800`): most texts skip the walk. */
const mayHoldSurrogate = /\\u[dD][89a-fA-F]|[\ud800-\udfff]/;

/** Throws the 422 naming the first string of a parsed JSON `value` that is not Unicode text. */
export function refuseIllFormedText(text: string, value: unknown): void {
  if (!mayHoldSurrogate.test(text)) return;
  const field = firstBadString(value);
  if (field === null) return;
  const message =
    field === "body"
      ? "The request body must be valid UTF-8 text: it holds a lone UTF-16 surrogate."
      : `The ${label(field)} field must be valid UTF-8 text: it holds a lone UTF-16 surrogate.`;
  throw new ValidationFailedError({ [field]: [message] });
}

/** Refuses a request whose query is not UTF-8 before any route reads it: every route, the pages' too. */
export const queryEncoding = new Elysia({ name: "query-encoding" }).onRequest(({ request }) => {
  const field = badQueryField(request.url);
  if (field !== null) throw badQueryError(field);
});
