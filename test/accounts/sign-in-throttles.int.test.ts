/**
 * The registration limit and the login throttle count every attempt, refused ones included, and are checked
 * before the body is validated: a client cannot send unlimited failing registrations, and past the limit a
 * hostile body costs a 429. Each test starts its own app with a newcomer's limits (5 a minute), since the
 * in-process app sees every client at one address.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { awayFromMinuteBoundary } from "../support/minute-window.ts";

let app: TestApp | null = null;
afterEach(async () => {
  await app?.close();
  app = null;
});
const started = async () => (app = await startTestApp());

const statuses = async (send: () => Promise<Response>, times: number) => {
  const seen: number[] = [];
  for (let i = 0; i < times; i++) seen.push((await send()).status);
  return seen;
};
/** Over every field's limit, within what the route takes; `huge` is over that too (413 before it is read). */
const overLong = "a".repeat(20_000);
const huge = "a".repeat(1_000_000);

describe("registrations", () => {
  test("five refused registrations spend the address's five a minute: the sixth is 429 however good its body", async () => {
    const { request } = await started();
    await awayFromMinuteBoundary();
    const refused = [
      { name: huge, email: "a@example.com", password: "password123", password_confirmation: "password123" },
      { name: overLong, email: "a@example.com", password: "password123", password_confirmation: "password123" },
      { name: "Ada", email: "not an email", password: "password123", password_confirmation: "password123" },
      { name: "Ada", email: "ada@example.com", password: "password123", password_confirmation: "other password" },
      { name: "gnp\u202e.exe", email: "ada@example.com", password: "password123", password_confirmation: "password123" },
    ];
    const answered: number[] = [];
    for (const body of refused) answered.push((await request("POST", "/api/register", { json: body })).status);
    // The first is larger than anything the route takes: refused for its size, and counted all the same.
    expect(answered).toEqual([413, 422, 422, 422, 422]);
    const good = await request("POST", "/api/register", {
      json: { name: "Ada", email: "ada@example.com", password: "password123", password_confirmation: "password123" },
    });
    expect(good.status).toBe(429);
    expect(Number(good.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await good.json()) as { message: string }).message).toStartWith("Too many registration attempts from your address.");
    // A body that is not even an object is a 429 too now: the limit comes first.
    expect((await request("POST", "/api/register", { json: [huge] })).status).toBe(429);
  });

  test("once the address's limit is spent, a registration is 429 before its body is read", async () => {
    const { request, service, origin } = await started();
    await awayFromMinuteBoundary();
    expect(await statuses(() => request("POST", "/api/register", { json: { name: "x" } }), 5)).toEqual([422, 422, 422, 422, 422]);
    for (const path of ["/api/register", "/api/session/register"]) {
      let read = 0;
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          if (read >= 1_000_000) return controller.close();
          read += 64 * 1024;
          controller.enqueue(new Uint8Array(64 * 1024).fill(0x20));
        },
      });
      const headers = { "content-type": "application/json", "content-length": String(1_000_000), origin };
      const answer = await service.app!.handle(new Request(`${origin}${path}`, { method: "POST", headers, body }));
      expect([path, answer.status]).toEqual([path, 429]);
      expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(read).toBeLessThanOrEqual(2 * 64 * 1024);
    }
  });

  test("the web app's registration counts with /api/register, before validation too", async () => {
    const { request, origin } = await started();
    await awayFromMinuteBoundary();
    const fromOurPage = { origin };
    expect(await statuses(() => request("POST", "/api/register", { json: { name: overLong } }), 3)).toEqual([422, 422, 422]);
    expect(await statuses(() => request("POST", "/api/session/register", { json: { name: overLong }, headers: fromOurPage }), 3)).toEqual([422, 422, 429]);
  });
});

describe("logins", () => {
  test("wrong and malformed attempts on one email count together; another email has its own five", async () => {
    const { request, register } = await started();
    const { email, password } = await register();
    await awayFromMinuteBoundary();
    const attempts = [
      { email, password: "wrong password" },
      { email, password: "" },
      { email, password: overLong },
      { email: email.toUpperCase() },
      { email, password: 12345 },
    ];
    for (const body of attempts) expect([401, 422]).toContain((await request("POST", "/api/login", { json: body })).status);
    expect((await request("POST", "/api/login", { json: { email, password } })).status).toBe(429);
    const other = await register();
    expect((await request("POST", "/api/login", { json: { email: other.email, password: other.password } })).status).toBe(200);
  });

  test("a body without a usable email counts toward its client address, so those are limited too", async () => {
    const { request, register } = await started();
    const { email, password } = await register();
    await awayFromMinuteBoundary();
    const unusable = [{}, { email: 42 }, { email: "" }, { email: overLong, password: "x" }, { email: ["a@example.com"] }];
    for (const body of unusable) expect((await request("POST", "/api/login", { json: body })).status).toBe(422);
    expect((await request("POST", "/api/login", { json: { password: "x" } })).status).toBe(429);
    // An object that would turn into an email as a string is no email either, and no way around the count.
    expect((await request("POST", "/api/login", { json: { email: { toString: "a@example.com" }, password: "x" } })).status).toBe(429);
    // Nor is a body too large to read: it counts toward the address as well.
    expect((await request("POST", "/api/login", { json: { email: huge, password: "x" } })).status).toBe(429);
    // The address's count is not an email's: a real login still works.
    expect((await request("POST", "/api/login", { json: { email, password } })).status).toBe(200);
  });
});

describe("attempts refused for their size", () => {
  test("a login too large to read counts toward its address, and is 429 once the address has spent its five", async () => {
    const { request, register } = await started();
    const { email, password } = await register();
    await awayFromMinuteBoundary();
    expect(await statuses(() => request("POST", "/api/login", { json: { email: huge, password: "x" } }), 6)).toEqual([413, 413, 413, 413, 413, 429]);
    expect((await request("POST", "/api/login", { json: { email, password } })).status).toBe(200);
  });
});
