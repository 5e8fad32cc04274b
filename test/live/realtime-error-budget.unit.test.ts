/**
 * A flood of bad events, given/when/then with the session's fakes: each is answered while the budget lasts (50 at once,
 * then 20 a second), then the session ends with `too_many_errors` and 1008, its audio kept; audio sent too fast is only
 * dropped quietly once its own budget is spent, the session goes on.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { audioOf, endSessions, startSession } from "./realtime-session-fakes.ts";
import { ErrorBudget } from "../../src/live/error-budget.ts";

afterEach(() => endSessions());

describe("the error budget", () => {
  test("given a full bucket, when 60 errors come at once, then 50 are allowed; a second later 20 more", () => {
    const budget = new ErrorBudget();
    const allowed = Array.from({ length: 60 }, () => budget.take(0)).filter(Boolean).length;
    expect(allowed).toBe(50);
    expect(Array.from({ length: 30 }, () => budget.take(1000)).filter(Boolean).length).toBe(20);
  });

  test("given a session, when 60 bad frames come at once, then 50 errors, then too_many_errors, 1008, and the audio is kept", async () => {
    const given = await startSession();
    given.append(audioOf(200, false));
    for (let i = 0; i < 60; i++) given.session.receive("not json");
    await given.settle();
    const codes = given.of("error").map((event) => event.error.code);
    expect(codes.filter((code) => code === "invalid_json")).toHaveLength(50);
    expect(codes.at(-1)).toBe("too_many_errors");
    expect(given.closed?.code).toBe(1008);
    expect(given.kept).toHaveLength(1);
  });

  test("given a session, when audio comes far too fast, then errors until the budget is spent, then quiet drops; the session goes on", async () => {
    const given = await startSession({ limits: { burstMs: 0 } });
    for (let i = 0; i < 80; i++) given.append(audioOf(100, false));
    await given.settle();
    const codes = given.of("error").map((event) => event.error.code);
    expect(codes.length).toBe(50);
    expect(new Set(codes)).toEqual(new Set(["audio_too_fast"]));
    expect(given.closed).toBeNull();
  });
});
