/**
 * The app's one place for API errors (src/web/app/api-errors.ts): a 429 says when to try again in words, from Retry-After
 * (seconds or an HTTP date), after the reason's first sentence; a 429 without Retry-After (3 tasks in progress) and
 * every other error keep the server's message; a 422 keeps its fields.
 */
import { describe, expect, test } from "bun:test";
import { errorOf, waitInWords } from "../../src/web/app/api-errors.ts";

const answer = (status: number, headers: Record<string, string> = {}) => new Response(null, { status, headers });

describe("API errors as the app shows them", () => {
  test("a 429 with Retry-After says when to try again, in words", () => {
    expect(errorOf(answer(429, { "retry-after": "42" }), { message: "Too many requests. Slow down and retry after the time in Retry-After." }).message).toBe(
      "Too many requests. Try again in 42 seconds.",
    );
    expect(errorOf(answer(429, { "retry-after": "1" }), { message: "Too many login attempts. Try again in 1 second." }).message).toBe(
      "Too many login attempts. Try again in 1 second.",
    );
    const error = errorOf(answer(429, { "retry-after": "17" }), null);
    expect(error.message).toBe("Too many requests. Try again in 17 seconds.");
    expect(error.retryAfterSeconds).toBe(17);
    const date = new Date(Date.now() + 30_000).toUTCString();
    expect(errorOf(answer(429, { "retry-after": date }), { message: "Too many requests." }).message).toMatch(
      /^Too many requests\. Try again in (29|30|31) seconds\.$/,
    );
  });

  test("a 429 without a usable Retry-After, and other errors, keep the server's words", () => {
    const busy = "You already have 3 tasks in progress; wait until one finishes.";
    expect(errorOf(answer(429), { message: busy }).message).toBe(busy);
    expect(errorOf(answer(429, { "retry-after": "soon" }), { message: busy }).message).toBe(busy);
    const invalid = errorOf(answer(422), { message: "The name field is required.", errors: { name: ["The name field is required."] } });
    expect(invalid.message).toBe("The name field is required.");
    expect(invalid.fields).toEqual({ name: ["The name field is required."] });
    expect(errorOf(answer(500), "not json").message).toBe("The server answered 500.");
  });

  test("waits in words", () => {
    expect([1, 2, 59, 60, 61, 120, 3600].map(waitInWords)).toEqual([
      "1 second",
      "2 seconds",
      "59 seconds",
      "60 seconds",
      "61 seconds",
      "2 minutes",
      "60 minutes",
    ]);
  });
});
