import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

type Json = Record<string, unknown>;
const json = async (response: Response) => (await response.json()) as Json;
const register = (body: Json) => app.request("POST", "/api/register", { json: body });
const valid = (email: string) => ({ name: "Ann Lee", email, password: "password123", password_confirmation: "password123" });

describe("register", () => {
  test("201 with an opaque token and the user", async () => {
    const response = await register(valid("ann@example.com"));
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(body.user).toEqual({ id: expect.any(Number), name: "Ann Lee", email: "ann@example.com" });
    expect(body.token).toMatch(/^scr_[A-Za-z0-9_-]{43}$/);
  });

  test("422 with errors per field", async () => {
    const response = await register({ name: "x".repeat(256), email: "not-an-email", password: "short", password_confirmation: "other" });
    expect(response.status).toBe(422);
    const body = await json(response);
    expect(Object.keys(body.errors as Json).sort()).toEqual(["email", "name", "password"]);
    const missing = await json(await register({}));
    expect(Object.keys(missing.errors as Json).sort()).toEqual(["email", "name", "password", "password_confirmation"]);
    const overlong = await json(await register(valid(`${"a".repeat(250)}@example.com`)));
    expect(overlong.errors).toHaveProperty("email");
  });

  test("the password must be confirmed", async () => {
    const response = await register({ ...valid("conf@example.com"), password_confirmation: "password124" });
    expect(response.status).toBe(422);
    expect((await json(response)).errors).toEqual({ password: ["The password field confirmation does not match."] });
  });

  test("an email is unique, ignoring case, even under parallel registrations", async () => {
    const attempts = await Promise.all(Array.from({ length: 8 }, (_, i) => register(valid(i % 2 ? "Race@Example.com" : "race@example.com"))));
    const statuses = attempts.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201).length).toBe(1);
    expect(statuses.filter((s) => s === 422).length).toBe(7);
    const refused = await json(attempts.find((r) => r.status === 422)!);
    expect(refused.errors).toEqual({ email: ["The email has already been taken."] });
    expect(await app.adapters.documents.collection("users").countDocuments({ emailKey: "race@example.com" })).toBe(1);
  });

  test("wrong types and malformed JSON are 4xx, never 500", async () => {
    expect((await register({ name: 5, email: ["x"], password: null, password_confirmation: {} })).status).toBe(422);
    const malformed = await app.request("POST", "/api/register", { body: "{", headers: { "content-type": "application/json" } });
    expect(malformed.status).toBe(400);
  });
});

describe("login and logout", () => {
  test("the right password gives a new working token; wrong email and wrong password answer alike", async () => {
    const { email, password } = await app.register();
    const ok = await app.request("POST", "/api/login", { json: { email: email.toUpperCase(), password } });
    expect(ok.status).toBe(200);
    const { token } = (await ok.json()) as { token: string };
    expect((await app.request("GET", "/api/user", { token })).status).toBe(200);

    const wrongPassword = await app.request("POST", "/api/login", { json: { email, password: "nope-nope" } });
    const unknownEmail = await app.request("POST", "/api/login", { json: { email: "nobody@example.com", password } });
    expect(wrongPassword.status).toBe(401);
    expect(unknownEmail.status).toBe(401);
    expect(await wrongPassword.json()).toEqual(await unknownEmail.json());
  });

  test("logout revokes only the token that made the request", async () => {
    const { token, email, password } = await app.register();
    const second = ((await (await app.request("POST", "/api/login", { json: { email, password } })).json()) as { token: string }).token;
    const logout = await app.request("POST", "/api/logout", { token });
    expect(logout.status).toBe(204);
    expect(await logout.text()).toBe("");
    expect((await app.request("GET", "/api/user", { token })).status).toBe(401);
    expect((await app.request("GET", "/api/user", { token: second })).status).toBe(200);
  });

  test("tokens are stored only as hashes", async () => {
    const { token } = await app.register();
    const log = JSON.stringify(await app.adapters.eventStore.readAll({ limit: 100_000 }));
    const readModels = JSON.stringify(await app.adapters.documents.collection("credentials").find({}));
    expect(log).not.toContain(token);
    expect(readModels).not.toContain(token);
  });
});

describe("authentication", () => {
  test("every non-public endpoint answers 401 without a valid token", async () => {
    for (const [method, path] of [
      ["GET", "/api/user"],
      ["PUT", "/api/user"],
      ["POST", "/api/logout"],
      ["GET", "/api/api-keys"],
      ["POST", "/api/api-keys"],
    ]) {
      for (const token of [undefined, "scr_not-a-real-token"]) {
        const response = await app.request(method!, path!, { token, json: {} });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ message: "Unauthenticated." });
      }
    }
    const basic = await app.request("GET", "/api/user", { headers: { authorization: "Basic YTpi" } });
    expect(basic.status).toBe(401);
  });

  test("health, register and login stay public", async () => {
    expect((await app.request("GET", "/api/health")).status).toBe(200);
  });
});

describe("GET /api/user", () => {
  test("has balance, subscription and queue exactly as spec 2.4, and Scribe's retention (none by default)", async () => {
    const { token, id } = await app.register({ name: "Bo Chen" });
    const body = await json(await app.request("GET", "/api/user", { token }));
    expect(Object.keys(body).sort()).toEqual(["avatar", "balance", "email", "id", "name", "queue", "retention_days", "retention_max_days", "subscription"]);
    expect(body.id).toBe(id);
    expect(body.retention_days).toBeNull();
    expect(body.retention_max_days).toBe(3650);
    expect(body.balance).toEqual({
      used_seconds: 0,
      remaining_seconds: 1800,
      allowance_remaining_seconds: 1800,
      top_up_remaining_seconds: 0,
      total_seconds: 1800,
      usage_percent: 0,
    });
    expect(body.subscription).toEqual({ plan: "Free", plan_key: "free", tier: "free", billing_interval: "none", active: false, access_tier: "free" });
    expect(body.queue).toEqual({ pending_count: 0, running_count: 0, failed_count: 0 });
    const avatar = await app.request("GET", new URL(body.avatar as string).pathname);
    expect(avatar.headers.get("content-type")).toBe("image/svg+xml");
    expect(await avatar.text()).toContain(">BC<");
  });
});
