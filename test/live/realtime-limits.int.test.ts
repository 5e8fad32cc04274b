/**
 * The limits of live sessions over a real port: audio faster than twice real time beyond the burst is dropped with an
 * `error` (the session goes on), an account holds LIVE_SESSIONS_PER_ACCOUNT sessions at once, a process runs
 * LIVE_SESSIONS_AT_ONCE, and a balance with no time left is refused; `session.close` ends a session as a task.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { listen, RealtimeClient } from "./realtime-client.ts";
import { neverReads } from "./hostile-clients.ts";

let app: TestApp;
let server: { url: string; stop(): Promise<void> };

async function keyOn(plan: "pro" | "payg"): Promise<string> {
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "realtime" } });
  if (plan !== "pro") await app.setPlan(user.id, plan);
  return ((await created.json()) as { key: string }).key;
}

const connect = (key: string) => RealtimeClient.connect(server.url, { headers: { authorization: `Bearer ${key}` } });

/** 24 kHz silence. */
const silence = (seconds: number) => new Int16Array(Math.round(24_000 * seconds));

beforeAll(async () => {
  app = await startTestApp({
    ...scriptPace,
    TRANSCRIPTION_WORKER: "off",
    LIVE_SESSIONS_PER_ACCOUNT: "1",
    LIVE_SESSIONS_AT_ONCE: "2",
    LIVE_BURST_SECONDS: "1",
  });
  server = listen(app);
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

test("audio at 20x real time is dropped beyond the burst with an error event, and the session goes on", async () => {
  const client = await connect(await keyOn("pro"));
  await client.next("session.created");
  // 10 s of audio in half a second: about 1 s (the burst) and twice the elapsed time get in, the rest is refused.
  for (let i = 0; i < 20; i++) {
    client.append(silence(0.5));
    await Bun.sleep(25);
  }
  const refused = await client.next("error");
  expect(refused.error.code).toBe("audio_too_fast");
  expect(refused.error.message).toContain("2x real time");
  const refusals = client.errors().length;
  expect(refusals).toBeGreaterThanOrEqual(15);
  client.send({ type: "session.close" });
  const closed = await client.next("session.closed");
  expect(typeof closed.task_id).toBe("number");
  expect((await client.closed).code).toBe(1000);
});

test("an account holds LIVE_SESSIONS_PER_ACCOUNT sessions; a closed one frees its place", async () => {
  const key = await keyOn("pro");
  const first = await connect(key);
  await first.next("session.created");
  const second = await connect(key);
  const refused = await second.next("error");
  expect(refused.error.code).toBe("session_limit_reached");
  expect((await second.closed).code).toBe(1008);
  first.send({ type: "session.close" });
  const closed = await first.next("session.closed");
  // Nothing was recorded: no task.
  expect(closed.task_id).toBeNull();
  const third = await connect(key);
  await third.next("session.created");
  third.close();
});

test("a process runs LIVE_SESSIONS_AT_ONCE sessions; one more is told to try again later (1013)", async () => {
  const [one, two] = await Promise.all([connect(await keyOn("pro")), connect(await keyOn("pro"))]);
  await Promise.all([one.next("session.created"), two.next("session.created")]);
  const third = await connect(await keyOn("pro"));
  const refused = await third.next("error");
  expect(refused.error.code).toBe("server_busy");
  expect((await third.closed).code).toBe(1013);
  one.close();
  two.close();
  await Promise.all([one.closed, two.closed]);
});

test("a balance with no time left is refused before any audio", async () => {
  const client = await connect(await keyOn("payg"));
  const refused = await client.next("error");
  expect(refused.error.code).toBe("insufficient_balance");
  expect((await client.closed).code).toBe(1008);
});

test("session.close makes the session a task of the account, with its audio", async () => {
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "realtime" } });
  const key = ((await created.json()) as { key: string }).key;
  const client = await connect(key);
  await client.next("session.created");
  client.append(silence(1));
  client.send({ type: "session.close" });
  const closed = await client.next("session.closed");
  expect(closed.task_id).toBeGreaterThan(0);
  const task = await app.request("GET", `/api/tasks/${closed.task_id}`, { token: user.token });
  expect(task.status).toBe(200);
  const body = (await task.json()) as { duration: number };
  expect(body.duration).toBe(1);
});

test("/metrics shows the sessions open and the audio seconds received", async () => {
  const metrics = await (await app.request("GET", "/metrics")).text();
  expect(metrics).toContain("scribe_live_sessions_open");
  const audio = metrics.match(/^scribe_live_audio_seconds_total (\S+)$/m);
  expect(Number(audio?.[1])).toBeGreaterThanOrEqual(1);
  expect(metrics).toContain("scribe_live_partial_latency_seconds_bucket");
});

test("a client that floods and never reads is cut off and its session ends; the service answers meanwhile", async () => {
  const key = await keyOn("pro");
  // The account holds one session at a time (LIVE_SESSIONS_PER_ACCOUNT here): whether the key opens another says the first ended.
  const flooded = neverReads(server.url, key);
  expect((await app.request("GET", "/api/health")).status).toBe(200);
  expect((await flooded).placeFreed).toBe(true);
});
