/**
 * The web app's first-party session (`/api/session`): signing in or registering sets an HttpOnly, SameSite=Strict
 * cookie and hands out no token; the cookie authenticates every API route the app uses (streams and downloads too)
 * under its own rate limit (SESSION_RATE_LIMIT_PER_MINUTE), while bearer tokens keep the spec's 10 a minute; a
 * tampered, unknown, expired or ended cookie is 401; a cookie-authenticated change from another site's page is 403;
 * the login throttle and the registration limit are shared with `/api/login` and `/api/register`. Hostile input to
 * the new routes and to the cookie and Origin headers gets an answer in the one error shape, never a 5xx.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { awayFromMinuteBoundary } from "../support/minute-window.ts";
import { manyRegistrations } from "../support/limits.ts";
import { createTask } from "../support/tasks.ts";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import { newSessionSecret } from "../../src/accounts/secrets.ts";

type SessionBody = { user: { id: number; name: string; email: string }; expires_at: string };
type ErrorBody = { message: string; errors?: Record<string, string[]> };

let app: TestApp;
/** What the app's own pages send: this service's origin. */
let own: Record<string, string>;
const foreign = { origin: "https://evil.example" };

beforeAll(async () => {
  // The newcomer's limits (10 a minute per token, 5 logins a minute per email, the session's default), but more
  // than 5 registrations a minute: every test here registers its own account from the one in-process address.
  app = await startTestApp({ ...manyRegistrations });
  own = { origin: app.origin };
});
afterAll(() => app?.close());

/** The `name=value` part of the session cookie an answer set. */
function sessionCookieOf(response: Response): string {
  const set = response.headers.getSetCookie().find((c) => c.startsWith("scribe_session="));
  if (!set) throw new Error(`no session cookie in ${JSON.stringify(response.headers.getSetCookie())}`);
  return set.split(";")[0]!;
}

async function signIn(email: string, password: string): Promise<string> {
  const response = await app.request("POST", "/api/session", { json: { email, password }, headers: own });
  expect(response.status).toBe(200);
  return sessionCookieOf(response);
}

async function expectError(response: Response, status: number): Promise<ErrorBody> {
  expect(response.status).toBe(status);
  expect(response.headers.get("content-type")).toContain("application/json");
  const body = (await response.json()) as ErrorBody;
  expect(body.message).toBeString();
  return body;
}

describe("signing in to a session", () => {
  test("POST /api/session: 200 with the user and no token; the cookie is HttpOnly, SameSite=Strict, Path=/, not Secure over http", async () => {
    const { email, password, id } = await app.register();
    const response = await app.request("POST", "/api/session", { json: { email, password }, headers: own });
    expect(response.status).toBe(200);
    const body = (await response.json()) as SessionBody & { token?: unknown };
    expect(body.user).toEqual({ id, name: expect.any(String), email });
    expect(body.token).toBeUndefined();
    const days = (Date.parse(body.expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(response.headers.get("cache-control")).toBe("no-store");

    const [session, hint] = response.headers.getSetCookie();
    const attributes = (cookie: string) => cookie.split(";").map((part) => part.trim());
    expect(session).toMatch(/^scribe_session=scs_[A-Za-z0-9_-]{43};/);
    expect(attributes(session!)).toEqual(expect.arrayContaining(["HttpOnly", "SameSite=Strict", "Path=/"]));
    expect(attributes(session!)).not.toContain("Secure");
    expect(attributes(session!).some((a) => a.startsWith("Domain"))).toBe(false);
    const maxAge = Number(
      attributes(session!)
        .find((a) => a.startsWith("Max-Age="))!
        .slice(8),
    );
    expect(Math.abs(maxAge - 30 * 86_400)).toBeLessThan(5);
    // The readable hint holds no secret: it only tells the app to ask who is signed in.
    expect(hint).toStartWith("scribe_signed_in=1;");
    expect(attributes(hint!)).not.toContain("HttpOnly");
    // The secret appears nowhere but in the HttpOnly cookie.
    expect(JSON.stringify(body)).not.toContain(session!.split(";")[0]!.slice("scribe_session=".length));
  });

  test("GET /api/session names the signed-in user; with the cookie, every route the app uses answers", async () => {
    const user = await app.register();
    const taskId = await createTask(app, user, { name: "Session task", segments: [{ start: 0, end: 1000, text: "hello there" }] });
    const cookie = await signIn(user.email, user.password);
    const current = await app.request("GET", "/api/session", { headers: { cookie } });
    expect(current.status).toBe(200);
    expect(((await current.json()) as SessionBody).user.id).toBe(user.id);
    expect(current.headers.get("x-ratelimit-remaining")).toBe("599");

    for (const path of ["/api/user", "/api/tasks", "/api/folders", "/api/notifications", `/api/tasks/${taskId}`, `/api/tasks/${taskId}/history`]) {
      expect({ path, status: (await app.request("GET", path, { headers: { cookie } })).status }).toEqual({ path, status: 200 });
    }
    const download = await app.request("GET", `/api/tasks/${taskId}/download/txt`, { headers: { cookie } });
    expect(download.status).toBe(200);
    expect(await download.text()).toContain("hello there");
    // The status stream (the app reads it with fetch).
    const stream = await app.request("GET", `/api/tasks/${taskId}/events`, { headers: { cookie } });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    await stream.body?.cancel();
    // A change from our own page.
    const renamed = await app.request("PUT", "/api/user", { json: { name: "Renamed by session" }, headers: { cookie, ...own } });
    expect(renamed.status).toBe(200);
    // API keys are managed from account settings, which the app reaches with its session.
    expect((await app.request("GET", "/api/api-keys", { headers: { cookie } })).status).toBe(200);
  });

  test("registering through POST /api/session/register: 201 with the user and the cookie; a bad body is 422 with every field", async () => {
    const email = `session-${crypto.randomUUID().slice(0, 8)}@example.com`;
    const password = "correct horse battery";
    const created = await app.request("POST", "/api/session/register", {
      json: { name: "Ada", email, password, password_confirmation: password },
      headers: own,
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as SessionBody & { token?: unknown };
    expect(body.user).toMatchObject({ name: "Ada", email });
    expect(body.token).toBeUndefined();
    const cookie = sessionCookieOf(created);
    expect(((await (await app.request("GET", "/api/session", { headers: { cookie } })).json()) as SessionBody).user.email).toBe(email);

    const mismatch = await app.request("POST", "/api/session/register", {
      json: { name: "Ada", email: `x-${email}`, password, password_confirmation: "something else" },
      headers: own,
    });
    expect((await expectError(mismatch, 422)).errors?.password).toBeArray();
    expect(mismatch.headers.getSetCookie()).toEqual([]);
    const taken = await app.request("POST", "/api/session/register", { json: { name: "Ada", email, password, password_confirmation: password }, headers: own });
    expect((await expectError(taken, 422)).errors?.email).toEqual(["The email has already been taken."]);
    const empty = await app.request("POST", "/api/session/register", { json: {}, headers: own });
    expect(Object.keys((await expectError(empty, 422)).errors ?? {}).sort()).toEqual(["email", "name", "password", "password_confirmation"]);
  });

  test("a wrong password is the same 401 as /api/login's, and sets no cookie; social sign-in without IDP_ISSUER is 422", async () => {
    const { email } = await app.register();
    const wrong = await app.request("POST", "/api/session", { json: { email, password: "not the password" }, headers: own });
    expect((await expectError(wrong, 401)).message).toBe("These credentials do not match our records.");
    expect(wrong.headers.getSetCookie()).toEqual([]);
    const unknown = await app.request("POST", "/api/session", { json: { email: "nobody@example.com", password: "whatever1" }, headers: own });
    expect((await expectError(unknown, 401)).message).toBe("These credentials do not match our records.");
    const social = await app.request("POST", "/api/session/social", { json: { provider: "idp", code: "abc" }, headers: own });
    expect((await expectError(social, 422)).errors?.provider?.[0]).toContain("not configured");
  });
});

describe("the address the app is opened at", () => {
  test("Secure where the client reached us over https (PUBLIC_URL's host behind a TLS proxy); any other address works over http", async () => {
    const behindProxy = await startTestApp({ PUBLIC_URL: "https://scribe.example", ...manyRegistrations });
    try {
      const { email, password } = await behindProxy.register();
      const signIn = (url: string, origin: string) =>
        behindProxy.service.app!.handle(
          new Request(url, { method: "POST", headers: { origin, "content-type": "application/json" }, body: JSON.stringify({ email, password }) }),
        );
      const secure = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";").some((part) => part.trim() === "Secure"));
      // TLS ends at the proxy, which passes the Host on: the request arrives as http, for PUBLIC_URL's host.
      const proxied = await signIn("http://scribe.example/api/session", "https://scribe.example");
      expect(proxied.status).toBe(200);
      expect(secure(proxied)).toEqual([true, true]);
      // The same service opened at a LAN address over http: its own origin, no Secure (the browser would drop it).
      const lan = await signIn("http://10.0.0.5:3000/api/session", "http://10.0.0.5:3000");
      expect(lan.status).toBe(200);
      expect(secure(lan)).toEqual([false, false]);
      // A page elsewhere is refused, even one that names the LAN address over https.
      expect((await signIn("http://10.0.0.5:3000/api/session", "https://10.0.0.5:3000")).status).toBe(403);
    } finally {
      await behindProxy.close();
    }
  });
});

describe("a cookie that is not a live session is 401", () => {
  test("tampered, unknown, malformed, ended or expired: 401 in the error shape", async () => {
    const user = await app.register();
    const cookie = await signIn(user.email, user.password);
    const value = cookie.slice("scribe_session=".length);
    const flipped = value.slice(0, -1) + (value.endsWith("A") ? "B" : "A");
    const cases = [
      `scribe_session=${flipped}`,
      `scribe_session=${newSessionSecret().secret}`,
      "scribe_session=",
      "scribe_session=scs_short",
      `scribe_session=${value}x`,
      `scribe_session=${"scs_".padEnd(8000, "A")}`,
      "scribe_session=%00%ff%fe",
      `scribe_session="${value}"`,
      // An access token in the cookie is not a session: each credential arrives its own way.
      `scribe_session=${user.token}`,
      // The first of a repeated name counts.
      `scribe_session=junk; scribe_session=${value}`,
    ];
    for (const sent of cases) {
      const response = await app.request("GET", "/api/session", { headers: { cookie: sent } });
      expect({ sent: sent.slice(0, 60), status: response.status }).toEqual({ sent: sent.slice(0, 60), status: 401 });
      expect(((await response.json()) as ErrorBody).message).toBeString();
    }
    // Other cookies beside ours, and odd spacing, do not hide it.
    expect((await app.request("GET", "/api/session", { headers: { cookie: `theme=dark;   ${cookie} ; other=1` } })).status).toBe(200);
    // No cookie at all, or only other cookies: the plain 401.
    expect((await app.request("GET", "/api/session", { headers: { cookie: "theme=dark" } })).status).toBe(401);
    expect((await app.request("GET", "/api/user")).status).toBe(401);

    // Signed out: 204, both cookies cleared, and the cookie is refused from now on.
    const ended = await app.request("DELETE", "/api/session", { headers: { cookie, ...own } });
    expect(ended.status).toBe(204);
    expect(ended.headers.getSetCookie().map((c) => c.split(";").slice(0, 2).join(";"))).toEqual(["scribe_session=; Max-Age=0", "scribe_signed_in=; Max-Age=0"]);
    await expectError(await app.request("GET", "/api/session", { headers: { cookie } }), 401);
    await expectError(await app.request("GET", "/api/tasks", { headers: { cookie } }), 401);
  });

  test("a session past its expiry is refused, though its record is still there", async () => {
    const user = await app.register();
    const { sessionId, secret, sessionHash } = newSessionSecret();
    const past = new Date(Date.now() - 1000).toISOString();
    const { position } = await handle(
      app.adapters.eventStore,
      userStream(user.id),
      userDecider,
      (state) => userDecider.decide({ type: "StartSession", sessionId, sessionHash, expiresAt: past, method: "password", now: past }, state),
      { metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "test" } },
    );
    if (position !== null) await app.service.waitForProjections(position);
    expect(await app.adapters.documents.collection("credentials").findOne({ _id: `session:${sessionId}` })).not.toBeNull();
    const response = await app.request("GET", "/api/session", { headers: { cookie: `scribe_session=${secret}` } });
    expect((await expectError(response, 401)).message).toContain("session has ended");
  });

  test("GET and DELETE /api/session take the cookie only: a bearer token is 401 there and is not revoked", async () => {
    const user = await app.register();
    await expectError(await app.request("GET", "/api/session", { token: user.token }), 401);
    await expectError(await app.request("DELETE", "/api/session", { token: user.token }), 401);
    expect((await app.request("GET", "/api/user", { token: user.token })).status).toBe(200);
    // A session's secret is not a bearer token either.
    const cookie = await signIn(user.email, user.password);
    await expectError(await app.request("GET", "/api/user", { token: cookie.slice("scribe_session=".length) }), 401);
  });
});

describe("cross-site requests with the session cookie", () => {
  test("a change sent with the cookie from another site's page is 403; reads are not, and the session stays", async () => {
    const user = await app.register();
    const cookie = await signIn(user.email, user.password);
    const put = (headers: Record<string, string>) => app.request("PUT", "/api/user", { json: { name: "Forged" }, headers: { cookie, ...headers } });
    const refused: Record<string, string>[] = [
      foreign,
      { origin: "null" },
      { origin: "http://localhost:3000.evil.example" },
      { origin: "http://localhost:3000@evil.example" },
      { origin: "https://localhost:3000" },
      { origin: "javascript:alert(1)" },
      { origin: "x".repeat(5000) },
      {}, // no Origin, no Sec-Fetch-Site, no Referer: nothing says it came from our page
      { "sec-fetch-site": "cross-site" },
      { "sec-fetch-site": "same-site" },
      { "sec-fetch-site": "none" },
      { ...own, "sec-fetch-site": "cross-site" },
      { referer: "https://evil.example/attack.html" },
      { referer: "not a url" },
    ];
    for (const headers of refused) {
      const response = await put(headers);
      expect({ headers, status: response.status }).toEqual({ headers, status: 403 });
      expect(((await response.json()) as ErrorBody).message).toContain("did not come from this site's own pages");
    }
    for (const [method, path] of [
      ["POST", "/api/tasks"],
      ["PATCH", "/api/tasks/bulk/move"],
      ["DELETE", "/api/tasks/bulk"],
    ] as const) {
      const response = await app.request(method, path, { json: { ids: [1] }, headers: { cookie, ...foreign } });
      expect({ method, status: response.status }).toEqual({ method, status: 403 });
    }
    const signOut = await app.request("DELETE", "/api/session", { headers: { cookie, ...foreign } });
    expect(signOut.status).toBe(403);
    expect(signOut.headers.getSetCookie()).toEqual([]);
    expect((await app.request("GET", "/api/user", { headers: { cookie, ...foreign } })).status).toBe(200);
    expect(((await (await app.request("GET", "/api/user", { headers: { cookie } })).json()) as { name: string }).name).not.toBe("Forged");

    // Our own page: its Origin, or without one its Sec-Fetch-Site or Referer.
    for (const headers of [own, { "sec-fetch-site": "same-origin" }, { ...own, "sec-fetch-site": "same-origin" }, { referer: `${app.origin}/account` }]) {
      expect({ headers, status: (await put(headers)).status }).toEqual({ headers, status: 200 });
    }
  });

  test("signing in from another site's page is refused before the login throttle counts it, so no one is signed in against their will", async () => {
    const { email, password } = await app.register();
    for (let i = 0; i < 6; i++) {
      const response = await app.request("POST", "/api/session", { json: { email, password }, headers: foreign });
      expect(response.status).toBe(403);
      expect(response.headers.getSetCookie()).toEqual([]);
    }
    const registered = await app.request("POST", "/api/session/register", {
      json: { name: "X", email: `csrf-${crypto.randomUUID().slice(0, 8)}@example.com`, password, password_confirmation: password },
      headers: foreign,
    });
    expect(registered.status).toBe(403);
    expect((await app.request("POST", "/api/session/social", { json: { provider: "idp", code: "c" }, headers: foreign })).status).toBe(403);
    expect((await app.request("POST", "/api/session", { json: { email, password } })).status).toBe(403);
    // The throttle did not count any of them.
    expect((await app.request("POST", "/api/session", { json: { email, password }, headers: own })).status).toBe(200);
  });

  test("bearer tokens are unaffected: no Origin check, the header wins over a cookie, and the spec's 10 a minute still holds", async () => {
    const user = await app.register();
    const cookie = await signIn(user.email, user.password);
    await awayFromMinuteBoundary();
    // A script with a token may send any Origin; with a token and a cookie, the token is the credential.
    const renamed = await app.request("PUT", "/api/user", { token: user.token, json: { name: "By token" }, headers: { ...foreign, cookie } });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get("x-ratelimit-remaining")).toBe("9");
    const answers = await Promise.all(Array.from({ length: 12 }, () => app.request("GET", "/api/user", { token: user.token })));
    expect(answers.filter((r) => r.status === 200).length).toBe(9);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited.length).toBe(3);
    const retryAfter = Number(limited[0]!.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(((await limited[0]!.json()) as ErrorBody).message).toMatch(/^Too many requests\. Try again in \d+ seconds?\.$/);
    // The same person's session has its own allowance.
    const bySession = await app.request("GET", "/api/user", { headers: { cookie } });
    expect(bySession.status).toBe(200);
    expect(Number(bySession.headers.get("x-ratelimit-remaining"))).toBeGreaterThan(500);
  });
});

describe("the session's own limits", () => {
  test("a session makes far more than 10 requests a minute (the default allows 600)", async () => {
    const user = await app.register();
    const cookie = await signIn(user.email, user.password);
    await awayFromMinuteBoundary();
    const answers = await Promise.all(Array.from({ length: 100 }, () => app.request("GET", "/api/tasks", { headers: { cookie } })));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    const remaining = answers.map((r) => Number(r.headers.get("x-ratelimit-remaining")));
    expect(Math.min(...remaining)).toBe(500);
  });

  test("SESSION_RATE_LIMIT_PER_MINUTE is the session's limit: past it, 429 with Retry-After and the wait in words", async () => {
    const small = await startTestApp({ SESSION_RATE_LIMIT_PER_MINUTE: "15" });
    try {
      const user = await small.register();
      const signedIn = await small.request("POST", "/api/session", { json: { email: user.email, password: user.password }, headers: { origin: small.origin } });
      const cookie = sessionCookieOf(signedIn);
      await awayFromMinuteBoundary();
      const answers = await Promise.all(Array.from({ length: 20 }, () => small.request("GET", "/api/tasks", { headers: { cookie } })));
      expect(answers.filter((r) => r.status === 200).length).toBe(15);
      const limited = answers.find((r) => r.status === 429)!;
      const retryAfter = Number(limited.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const { message } = (await limited.json()) as ErrorBody;
      expect(message).toBe(`Too many requests. Try again in ${retryAfter} second${retryAfter === 1 ? "" : "s"}.`);
      // The token of the same account still has its own 10.
      expect((await small.request("GET", "/api/tasks", { token: user.token })).status).toBe(200);
    } finally {
      await small.close();
    }
  });

  test("the login throttle counts /api/login and /api/session together, per email", async () => {
    const { email, password } = await app.register();
    await awayFromMinuteBoundary();
    for (let i = 0; i < 3; i++) expect((await app.request("POST", "/api/login", { json: { email, password: "wrong-password" } })).status).toBe(401);
    for (let i = 0; i < 2; i++)
      expect((await app.request("POST", "/api/session", { json: { email, password: "wrong-password" }, headers: own })).status).toBe(401);
    const blocked = await app.request("POST", "/api/session", { json: { email: email.toUpperCase(), password }, headers: own });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.getSetCookie()).toEqual([]);
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(((await blocked.json()) as ErrorBody).message).toBe(`Too many login attempts. Try again in ${retryAfter} second${retryAfter === 1 ? "" : "s"}.`);
    expect((await app.request("POST", "/api/login", { json: { email, password } })).status).toBe(429);
  });
});

describe("the OpenAPI document", () => {
  test("names the cookie scheme, offers it beside bearer (not on /v1), and documents the session routes and the 403", async () => {
    type Operation = { security?: Record<string, string[]>[]; responses: Record<string, unknown> };
    const doc = (await (await app.request("GET", "/swagger/json")).json()) as {
      paths: Record<string, Record<string, Operation>>;
      components: { securitySchemes: Record<string, unknown>; schemas: Record<string, unknown> };
    };
    expect(doc.components.securitySchemes.session).toMatchObject({ type: "apiKey", in: "cookie", name: "scribe_session" });
    expect(doc.components.schemas.Session).toBeDefined();
    expect(doc.paths["/api/tasks"]!.get!.security).toEqual([{ bearer: [] }, { session: [] }]);
    expect(doc.paths["/v1/audio/transcriptions"]!.post!.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(doc.paths["/api/user"]!.put!.responses)).toContain("403");
    expect(doc.paths["/api/session"]!.get!.security).toEqual([{ session: [] }]);
    expect(Object.keys(doc.paths["/api/session"]!.post!.responses)).toEqual(expect.arrayContaining(["200", "401", "403", "422", "429"]));
    expect(Object.keys(doc.paths["/api/session"]!.delete!.responses)).toEqual(expect.arrayContaining(["204", "401", "403"]));
    expect(Object.keys(doc.paths["/api/session/register"]!.post!.responses)).toEqual(expect.arrayContaining(["201", "403", "422", "429"]));
    expect(Object.keys(doc.paths["/api/session/social"]!.post!.responses)).toEqual(expect.arrayContaining(["200", "403", "422", "502"]));
  });
});

describe("hostile input to the session routes", () => {
  const bodies: [string, string][] = [
    ["not JSON", "{email:"],
    ["an array", "[]"],
    ["a string", '"x"'],
    ["null", "null"],
    ["deep nesting", `${'{"a":'.repeat(200)}1${"}".repeat(200)}`],
    ["built-in key names", '{"__proto__":{"email":"a@b.c"},"constructor":{"prototype":1},"email":"a@example.com","password":"x"}'],
    ["a repeated key", '{"email":"a@example.com","email":"b@example.com","password":"pw"}'],
    ["a huge email", JSON.stringify({ email: `${"a".repeat(100_000)}@example.com`, password: "password1" })],
    ["wrong types", JSON.stringify({ email: 12, password: { $ne: null } })],
    ["NUL and bidi controls", JSON.stringify({ email: "a\u0000@example.com\u202e", password: "pw\u0000" })],
  ];
  for (const path of ["/api/session", "/api/session/register", "/api/session/social"]) {
    test(`${path}: every body is answered below 500 in the error shape, with no cookie`, async () => {
      for (const [label, body] of bodies) {
        const response = await app.request("POST", path, { body, headers: { ...own, "content-type": "application/json" } });
        const text = await response.text();
        expect({ label, status: response.status < 500 && response.status >= 400 }).toEqual({ label, status: true });
        const parsed = JSON.parse(text) as ErrorBody;
        expect({ label, message: typeof parsed.message }).toEqual({ label, message: "string" });
        if (response.status === 422) expect(Object.values(parsed.errors ?? {}).flat().length).toBeGreaterThan(0);
        expect(response.headers.getSetCookie()).toEqual([]);
      }
      const badBytes = await app.request("POST", path, {
        body: new Uint8Array([0x7b, 0x22, 0x65, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
        headers: { ...own, "content-type": "application/json" },
      });
      // Bytes that are not UTF-8: a 422 naming the body, like every other bad encoding.
      expect(badBytes.status).toBe(422);
      expect(Object.keys(((await badBytes.json()) as ErrorBody).errors ?? {})).toEqual(["body"]);
    });
  }
});
