import { describe, expect, test } from "bun:test";
import { canonicalJson, parseIdempotencyKey, requestFingerprint } from "../../src/http/idempotency-key.ts";

describe("the Idempotency-Key header's value", () => {
  test("quoted as a Structured Field String, as the draft sends it, or bare: the same key", () => {
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toEqual({ key: "8e03978e-40d5-43e8-bc93-6894a57f9324" });
    expect(parseIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324")).toEqual({ key: "8e03978e-40d5-43e8-bc93-6894a57f9324" });
    expect(parseIdempotencyKey("  spaced  ")).toEqual({ key: "spaced" });
    expect(parseIdempotencyKey("has inner space")).toEqual({ key: "has inner space" });
  });

  test("a quoted key's escapes and parameters follow RFC 8941", () => {
    expect(parseIdempotencyKey('"say \\"hi\\" \\\\o/"')).toEqual({ key: 'say "hi" \\o/' });
    expect(parseIdempotencyKey('"key";ignored=1')).toEqual({ key: "key" });
    for (const malformed of ['"unterminated', '"bad \\n escape"', '"key" trailing', '"tab\there"', '"é"', '"', '"a"b']) {
      expect(parseIdempotencyKey(malformed)).toHaveProperty("problem");
    }
  });

  test("1 to 255 characters: longer and empty keys are refused, the bound itself is taken", () => {
    expect(parseIdempotencyKey("k".repeat(255))).toEqual({ key: "k".repeat(255) });
    expect(parseIdempotencyKey(`"${"k".repeat(255)}"`)).toEqual({ key: "k".repeat(255) });
    expect(parseIdempotencyKey("k".repeat(256))).toEqual({ problem: "The Idempotency-Key must be at most 255 characters." });
    expect(parseIdempotencyKey(`"${"k".repeat(256)}"`)).toHaveProperty("problem");
    expect(parseIdempotencyKey("k".repeat(100_000))).toHaveProperty("problem");
    expect(parseIdempotencyKey("")).toEqual({ problem: "The Idempotency-Key must not be empty." });
    expect(parseIdempotencyKey('""')).toEqual({ problem: "The Idempotency-Key must not be empty." });
    expect(parseIdempotencyKey("   ")).toHaveProperty("problem");
  });

  test("only printable ASCII: control characters and other bytes are refused", () => {
    for (const hostile of ["nul\0byte", "bell\x07", "del\x7f", "ünïcode", "emoji🙂", "line\nbreak"])
      expect(parseIdempotencyKey(hostile)).toHaveProperty("problem");
  });
});

describe("the request's fingerprint", () => {
  test("method, path and body as JSON values: key order and white space aside", () => {
    const base = requestFingerprint("POST", "/api/tasks", { name: "a", path: "p" });
    expect(requestFingerprint("POST", "/api/tasks", { path: "p", name: "a" })).toBe(base);
    expect(requestFingerprint("POST", "/api/tasks", { name: "b", path: "p" })).not.toBe(base);
    expect(requestFingerprint("POST", "/api/folders", { name: "a", path: "p" })).not.toBe(base);
    expect(requestFingerprint("PUT", "/api/tasks", { name: "a", path: "p" })).not.toBe(base);
    expect(requestFingerprint("POST", "/api/tasks", undefined)).not.toBe(base);
  });

  test("canonical JSON sorts keys at every depth and keeps array order", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, null], a: "x", u: undefined })).toBe('{"a":"x","b":[{"c":2,"d":1},null]}');
    expect(canonicalJson([3, 1])).not.toBe(canonicalJson([1, 3]));
    expect(canonicalJson('quote"d')).toBe('"quote\\"d"');
  });
});
