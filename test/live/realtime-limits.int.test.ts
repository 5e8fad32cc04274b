/**
 * The limits of live sessions over a real port: audio faster than twice real time beyond the burst is dropped with an
 * `error` (the session goes on), an account holds LIVE_SESSIONS_PER_ACCOUNT sessions at once, a process runs
 * LIVE_SESSIONS_AT_ONCE, and a balance with no time left is refused; `session.close` ends a session as a task.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { listen, RealtimeClient } from "./realtime-client.ts";

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

/** A client frame (masked, as clients must send them) holding `text`. */
function maskedTextFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const masked = payload.map((byte, i) => byte ^ mask[i % 4]!);
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, masked]);
}

test("a client that never reads is disconnected and its session ends; the service answers meanwhile", async () => {
  const key = await keyOn("pro");
  const { connect: tcp } = await import("node:net");
  const port = Number(new URL(server.url).port);
  const socket = tcp({ host: "127.0.0.1", port });
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    "GET /v1/realtime?intent=transcription HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
      `Sec-WebSocket-Key: ${Buffer.from("0123456789abcdef").toString("base64")}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${key}\r\n\r\n`,
  );
  await new Promise<void>((resolve) => socket.once("data", () => resolve()));
  // From here on nothing is read: every bad frame is answered with an error event that waits to be sent.
  socket.pause();
  const frame = maskedTextFrame("x");
  for (let i = 0; i < 40; i++) {
    socket.write(Buffer.concat(Array.from({ length: 2500 }, () => frame)));
    await Bun.sleep(5);
  }
  expect((await app.request("GET", "/api/health")).status).toBe(200);
  // The session ended and gave its place back: the account (one session at a time) may open another.
  let admitted = false;
  for (let i = 0; i < 50 && !admitted; i++) {
    const next = await connect(key);
    const first = await Promise.race([next.next("session.created").then(() => true), next.next("error").then(() => false)]);
    next.close();
    admitted = first;
    if (!admitted) await Bun.sleep(100);
  }
  expect(admitted).toBe(true);
  socket.destroy();
});
