import { t } from "elysia";

/**
 * Text a person reads back as a name (task, folder, account, API key, file): no control characters
 * (C0, DEL, C1: NUL, tab, CR/LF, escape sequences), no bidirectional embedding, override or isolate
 * controls (U+202A–U+202E, U+2066–U+2069: with them "gnp\u202e.exe" shows as "exe.png"), and well-formed
 * UTF-16 (no lone surrogates, which no UTF-8 output can carry). Written without the `u` flag, as TypeBox
 * compiles patterns without it: anything but those or a surrogate, or a high surrogate followed by a low one.
 */
export const namePattern = "^(?:[^\\u0000-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069\\ud800-\\udfff]|[\\ud800-\\udbff][\\udc00-\\udfff])*$";

/** What a name that breaks `namePattern` is told. */
export const nameProblem = (field: string) => `The ${field} field must not contain control characters or text-direction controls.`;

/** The characters `namePattern` refuses, but surrogates: for names the server derives itself (from a file name). */
export const unnamable = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `namePattern` for a field of at most `maxLength` characters, which lets a longer value through at once:
 * TypeBox lists a value's every failure, so it ran the pattern over a 1 MiB name that `maxLength` had already
 * refused, and in JavaScriptCore this pattern's cost jumps past about 100,000 characters (2 ms at 100,000,
 * 40 ms at 200,000, 200 ms at a million: a group repeated that often leaves its JIT); outside production
 * Elysia lists the failures again for its own message. That was 400 ms of blocked event loop for one anonymous
 * registration. Such a value is `maxLength`'s to refuse; the pattern then looks at no more than
 * `maxLength + 1` characters, so a name costs the same whatever its size.
 */
export const boundedNamePattern = (maxLength: number) => `^(?:[\\s\\S]{${maxLength + 1}}|${namePattern.slice(1)})`;

/** Whether `pattern` is a name's (`boundedNamePattern`), for the message that says what it refuses. */
export const isNamePattern = (pattern: unknown) => typeof pattern === "string" && pattern.endsWith(`|${namePattern.slice(1)})`);

/** `tooLong`: what a name over `maxLength` is told, where the field's own rule says it better than a count of units. */
export const nameText = (options: { minLength?: number; maxLength: number; description?: string; tooLong?: string }) =>
  t.String({ ...options, pattern: boundedNamePattern(options.maxLength) });
