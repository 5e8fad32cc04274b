/**
 * Who may open a live session (`GET /v1/realtime`), over a real port: a refused connection is upgraded, told why in an
 * `error` event in OpenAI's shape, and closed with 1008, before any audio is taken.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { listen, RealtimeClient, type Connection } from "./realtime-client.ts";

let app: TestApp;
let server: { url: string; stop(): Promise<void> };
let proKey = "";
let freeKey = "";
let proToken = "";
let cookie = "";

async function apiKey(token: string): Promise<string> {
  const created = await app.request("POST", "/api/api-keys", { token, json: { name: "realtime" } });
  expect(created.status).toBe(201);
  return ((await created.json()) as { key: string }).key;
}

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
  server = listen(app);
  const pro = await app.register();
  await app.setPlan(pro.id, "pro");
  proKey = await apiKey(pro.token);
  proToken = pro.token;
  // A key made while on a paid plan, kept after going back to Free.
  const free = await app.register();
  await app.setPlan(free.id, "pro");
  freeKey = await apiKey(free.token);
  await app.setPlan(free.id, "free");
  const signedIn = await app.request("POST", "/api/session", { json: { email: pro.email, password: pro.password }, headers: { origin: app.origin } });
  expect(signedIn.status).toBe(200);
  cookie = signedIn.headers
    .getSetCookie()
    .find((set) => set.startsWith("scribe_session="))!
    .split(";")[0]!;
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

/** Connects, and returns the first event and how the socket closed (or null while it stays open). */
async function firstEvent(connection: Connection) {
  const client = await RealtimeClient.connect(server.url, connection);
  const first = await Promise.race([client.next("error"), client.next("session.created")]);
  const closed = await Promise.race([client.closed, Bun.sleep(300).then(() => null)]);
  client.close();
  return { first, closed, protocol: client.socket.protocol };
}

describe("refused before any audio", () => {
  const cases: [name: string, connection: () => Connection, code: string][] = [
    ["no credentials", () => ({}), "missing_credentials"],
    ["an unknown key", () => ({ headers: { authorization: "Bearer sk_unknown0000000000000000" } }), "invalid_api_key"],
    ["a malformed header", () => ({ headers: { authorization: "Basic abc" } }), "invalid_api_key"],
    ["a free plan's key", () => ({ headers: { authorization: `Bearer ${freeKey}` } }), "insufficient_plan"],
    ["a login token", () => ({ headers: { authorization: `Bearer ${proToken}` } }), "invalid_api_key"],
    ["an unknown key as subprotocol", () => ({ protocols: ["realtime", "openai-insecure-api-key.sk_nope"] }), "invalid_api_key"],
    ["the session cookie from another site", () => ({ headers: { cookie, origin: "https://evil.example" } }), "cross_site"],
    ["the session cookie without an Origin", () => ({ headers: { cookie } }), "cross_site"],
    ["a conversation session (?model=)", () => ({ headers: { authorization: `Bearer ${proKey}` }, query: "?model=gpt-realtime" }), "unsupported_session_type"],
    ["no intent", () => ({ headers: { authorization: `Bearer ${proKey}` }, query: "" }), "invalid_intent"],
  ];
  for (const [name, connection, code] of cases) {
    test(name, async () => {
      const { first, closed } = await firstEvent(connection());
      expect(first.type).toBe("error");
      if (first.type !== "error") return;
      expect(first.error.type).toBe("invalid_request_error");
      expect(first.error.code).toBe(code);
      expect(first.error.message.length).toBeGreaterThan(10);
      expect(first.event_id).toMatch(/^event_/);
      expect(closed?.code).toBe(1008);
    });
  }
});

describe("admitted", () => {
  const cases: [name: string, connection: () => Connection][] = [
    ["an API key of a paid plan", () => ({ headers: { authorization: `Bearer ${proKey}` } })],
    ["the key as subprotocol, answered with `realtime`", () => ({ protocols: ["realtime", `openai-insecure-api-key.${proKey}`] })],
    ["the web app's session from its own page", () => ({ headers: { cookie, origin: app.origin } })],
  ];
  for (const [name, connection] of cases) {
    test(name, async () => {
      const { first, closed, protocol } = await firstEvent(connection());
      expect(first.type).toBe("session.created");
      if (first.type !== "session.created") return;
      expect(first.session.type).toBe("transcription");
      expect(closed).toBeNull();
      if (connection().protocols) expect(protocol).toBe("realtime");
    });
  }
});

test("a plain GET is told to upgrade, in OpenAI's error shape", async () => {
  const response = await fetch(`${server.url.replace("ws:", "http:")}/v1/realtime?intent=transcription`, { headers: { authorization: `Bearer ${proKey}` } });
  expect(response.status).toBe(426);
  const body = (await response.json()) as { error: { code: string } };
  expect(body.error.code).toBe("upgrade_required");
});
