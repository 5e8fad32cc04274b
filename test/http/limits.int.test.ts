import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { awayFromMinuteBoundary } from "../support/minute-window.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { manyRegistrations } from "../support/limits.ts";

let app: TestApp;
beforeAll(async () => {
  // The spec's own numbers (the defaults): 10 requests a minute per token, 5 logins a minute per email.
  app = await startTestApp({ ...manyRegistrations, RATE_LIMIT_PER_MINUTE: "10", LOGIN_ATTEMPTS_PER_MINUTE: "5" });
});
afterAll(() => app.close());

describe("rate limits (spec 8)", () => {
  test("10 requests a minute per token, then 429 with a JSON message and Retry-After; other tokens are unaffected", async () => {
    const first = await app.register();
    const second = await app.register();
    await awayFromMinuteBoundary();
    const statuses = await Promise.all(Array.from({ length: 14 }, () => app.request("GET", "/api/user", { token: first.token })));
    expect(statuses.filter((r) => r.status === 200).length).toBe(10);
    const limited = statuses.filter((r) => r.status === 429);
    expect(limited.length).toBe(4);
    const retryAfter = Number(limited[0]!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(((await limited[0]!.json()) as { message: string }).message).toContain("Too many requests");
    expect((await app.request("GET", "/api/user", { token: second.token })).status).toBe(200);
  });

  test("5 login attempts a minute per email, then 429 even with the right password", async () => {
    const { email, password } = await app.register();
    await awayFromMinuteBoundary();
    for (let i = 0; i < 5; i++) expect((await app.request("POST", "/api/login", { json: { email, password: "wrong-password" } })).status).toBe(401);
    const blocked = await app.request("POST", "/api/login", { json: { email: email.toUpperCase(), password } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { message: string }).message).toContain("Too many login attempts");
    // Another email is counted on its own.
    const other = await app.register();
    expect((await app.request("POST", "/api/login", { json: { email: other.email, password: other.password } })).status).toBe(200);
  });
});
