/**
 * What must never reach a log line, and how it is taken out. Two layers: pino's `redact` blanks fields
 * whose name says they hold a secret (`password`, `authorization`...), and `scrubSecrets` runs over every
 * finished line, so a secret inside a message, an error's stack or a URL is caught whatever field it is in.
 */

export const redacted = "[REDACTED]";

/** Field names that hold a secret wherever they appear (top level, or one object down: `headers.authorization`). */
const secretFieldNames = [
  "password",
  "password_confirmation",
  "current_password",
  "new_password",
  "passwordHash",
  "token",
  "accessToken",
  "refreshToken",
  "tokenHash",
  "apiKey",
  "keyHash",
  "secret",
  "clientSecret",
  "client_secret",
  "secretAccessKey",
  "signingSecret",
  "webhookSecret",
  "authorization",
  "cookie",
  "set-cookie",
  "x-api-key",
];

const secretFields = new Set(secretFieldNames);
const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof Error);

/**
 * A log call's fields with those named like secrets blanked, at the top level and one object down
 * (`headers.authorization`). By hand rather than pino's `redact`: its wildcard paths cost ~15 µs a line,
 * ten times the rest of a request's line, and a line is written for every request.
 */
export function redactSecretFields(fields: Record<string, unknown>): Record<string, unknown> {
  let out: Record<string, unknown> | null = null;
  for (const key in fields) {
    const value = fields[key];
    let replacement: unknown = value;
    if (secretFields.has(key)) replacement = redacted;
    else if (isPlainObject(value)) {
      for (const inner in value) {
        if (!secretFields.has(inner)) continue;
        replacement = { ...value };
        for (const name in value) if (secretFields.has(name)) (replacement as Record<string, unknown>)[name] = redacted;
        break;
      }
    }
    if (replacement !== value) (out ??= { ...fields })[key] = replacement;
  }
  return out ?? fields;
}

// A character that may still belong to a value inside a JSON line: not a space, a quote, an escape or a separator.
const valueChar = String.raw`[^\s"'\\&#<>]`;

// Query parameters that sign a URL or carry a credential.
const signingParameters = [
  "X-Amz-Signature",
  "X-Amz-Credential",
  "X-Amz-Security-Token",
  "signature",
  "sig",
  "expires",
  "token",
  "access_token",
  "api_key",
  "apikey",
  "key",
  "secret",
  "password",
].join("|");

/** The patterns that are blanked, and what replaces them (exported for the test that `mayHoldPattern` covers them). */
export const scrubbers: [RegExp, string][] = [
  // Whole query strings of absolute URLs: presigned S3 URLs (X-Amz-Signature, X-Amz-Credential), our storage URLs
  // (signature, expires), and remote media links whose query may be someone's own presigned URL.
  [new RegExp(String.raw`(\b[a-z][a-z0-9+.-]*://[^\s"'\\?#<>]+)\?${valueChar}[^\s"'\\#<>]*`, "gi"), `$1?${redacted}`],
  // A signing query parameter in a relative URL or anywhere else.
  [new RegExp(`([?&](?:${signingParameters})=)${valueChar}*`, "gi"), `$1${redacted}`],
  // A password in a URL's user part (mongodb://user:password@host, nats://user:password@host).
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^\s"'\\:/@]+:)[^\s"'\\@/]+@/gi, `$1${redacted}@`],
  // Credentials in headers or text: bearer tokens, Basic credentials.
  [/\b(Bearer\s+)[A-Za-z0-9._~+/=-]+/gi, `$1${redacted}`],
  [/\b(Basic\s+)[A-Za-z0-9+/]{8,}={0,2}/g, `$1${redacted}`],
  // Our own tokens, API keys and session secrets (`scr_…`, `sk_…`, `scs_…`), long enough to be whole ones: the
  // 10-character API key prefix the API shows is public.
  [/\b(scr|sk|scs)_[A-Za-z0-9_-]{12,}/g, `$1_${redacted}`],
  // Password hashes (argon2, bcrypt).
  [/\$argon2(?:id|i|d)\$[^\s"'\\]+/g, redacted],
  [/\$2[aby]?\$\d{2}\$[./A-Za-z0-9]{53}/g, redacted],
];

/**
 * What every pattern above needs somewhere in a text before it can match: a scheme's `://`, a query's `?` or `&`,
 * `Bearer ` or `Basic `, one of our prefixes, or a hash's `$`. Most lines (a request's: its id, route, status and
 * times) have none, and one test instead of eight took the scrubbing of such a line from about 1 µs to 0.1.
 */
export const mayHoldPattern = /:\/\/|[?&]|bearer\s|basic\s|(?:scr|sk|scs)_|\$(?:argon2|2)/i;

/** Configured secrets shorter than this are not searched for: a blank or a one-letter test value would blank half the line. */
const shortestSecret = 6;

/** The forms a secret takes in a line: as written, and escaped inside a JSON string. */
function formsOf(secrets: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const secret of secrets) {
    if (secret.length < shortestSecret) continue;
    forms.add(secret);
    forms.add(JSON.stringify(secret).slice(1, -1));
  }
  // Longest first, so a secret that contains another is blanked whole.
  return [...forms].sort((a, b) => b.length - a.length);
}

/** Scrubs one text (a log line, an error message, a URL): the known patterns, then the configured secrets' values. */
export function scrubber(secrets: readonly string[] = []): (text: string) => string {
  const literals = formsOf(secrets);
  return (text) => {
    let out = text;
    if (mayHoldPattern.test(out)) for (const [pattern, replacement] of scrubbers) out = out.replace(pattern, replacement);
    for (const literal of literals) if (out.includes(literal)) out = out.replaceAll(literal, redacted);
    return out;
  };
}

/**
 * Whether a text holds one of the configured secrets' values, for texts of `characters` only (logger.ts, `flatLine`):
 * a secret with any other character cannot be in one.
 */
export function secretFinder(secrets: readonly string[], characters: RegExp): (text: string) => boolean {
  const literals = formsOf(secrets).filter((literal) => characters.test(literal));
  return (text) => {
    if (text.length < shortestSecret) return false;
    for (const literal of literals) if (text.includes(literal)) return true;
    return false;
  };
}

/** A URL fit for a log line: scheme, host and path; its query (signatures, tokens) and any password left out. */
export function loggableUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = redacted;
    const query = parsed.search ? `?${redacted}` : "";
    parsed.search = "";
    parsed.hash = "";
    return `${parsed.toString()}${query}`;
  } catch {
    return scrubber()(url);
  }
}
