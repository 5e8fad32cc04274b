/**
 * Hostile clients of GET /v1/realtime all at once (hostile-clients.ts), beside a well-behaved session speaking a
 * LibriSpeech clip at real-time pace and a client asking /api/health over the same port every 20 ms: each hostile client
 * gets its error, the good session's words and task come through, and health answers every request throughout. The
 * latency figure (p99 with and without them) is bench/live-hostile.bench.ts's; here only a stall would fail.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { librispeechDir } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { listen, RealtimeClient } from "./realtime-client.ts";
import { garbage, hugeFrame, neverReads, pastMaxLength, refused, tooFast } from "./hostile-clients.ts";

const clip = join(librispeechDir, "1089-134691-0000.flac");
const ready = prerequisite(
  "ffmpeg, PocketSphinx and LibriSpeech clip 1089-134691-0000",
  Bun.which("ffmpeg") !== null && Bun.which("pocketsphinx_continuous") !== null && existsSync(clip),
  "apt-get install ffmpeg pocketsphinx pocketsphinx-en-us; put the clips under ../shared/testdata",
);
const maxSeconds = 10;

let app: TestApp;
let server: { url: string; stop(): Promise<void> };

/** A fresh account's API key on `plan` (keys are made on a paid plan; a free one is the plan it then moves to). */
async function keyOn(plan: "pro" | "free"): Promise<{ key: string; token: string }> {
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "hostile" } });
  if (plan === "free") await app.setPlan(user.id, "free");
  return { key: ((await created.json()) as { key: string }).key, token: user.token };
}

async function speech(): Promise<Int16Array> {
  const child = Bun.spawn(["ffmpeg", "-nostdin", "-v", "error", "-i", clip, "-af", "apad=pad_dur=1", "-ac", "1", "-ar", "24000", "-f", "s16le", "-"], {
    stdout: "pipe",
  });
  const bytes = await new Response(child.stdout).arrayBuffer();
  return new Int16Array(bytes, 0, bytes.byteLength >> 1);
}

/** The well-behaved session: the clip at real time in 100 ms appends, then session.close. */
async function goodSession(key: string, samples: Int16Array): Promise<{ text: string; taskId: number | null; errors: number; deltas: number }> {
  const client = await RealtimeClient.connect(server.url, { protocols: ["realtime", `openai-insecure-api-key.${key}`] });
  await client.next("session.created");
  const started = performance.now();
  for (let i = 0, at = 0; at < samples.length; i++, at += 2400) {
    const due = started + i * 100;
    if (due > performance.now()) await Bun.sleep(due - performance.now());
    client.append(samples.subarray(at, at + 2400));
  }
  await client.next("conversation.item.input_audio_transcription.completed", 1, 20_000);
  client.send({ type: "session.close" });
  const closed = await client.next("session.closed", 1, 30_000);
  const texts = client.events.flatMap((event) => (event.type === "conversation.item.input_audio_transcription.completed" ? [event.transcript] : []));
  const deltas = client.events.filter((event) => event.type === "conversation.item.input_audio_transcription.delta").length;
  return { text: texts.join(" "), taskId: closed.task_id, errors: client.errors().length, deltas };
}

/** Asks /api/health every 20 ms until `done` settles; every answer's status and time. */
async function healthMeanwhile(done: Promise<unknown>): Promise<{ status: number; ms: number }[]> {
  const answers: { status: number; ms: number }[] = [];
  let finished = false;
  void done.finally(() => {
    finished = true;
  });
  const base = server.url.replace("ws://", "http://");
  while (!finished) {
    const started = performance.now();
    const response = await fetch(`${base}/api/health`);
    await response.arrayBuffer();
    answers.push({ status: response.status, ms: performance.now() - started });
    await Bun.sleep(20);
  }
  return answers;
}

beforeAll(async () => {
  if (!ready) return;
  app = await startTestApp({
    ...scriptPace,
    LIVE_SESSIONS_PER_ACCOUNT: "1",
    LIVE_SESSIONS_AT_ONCE: "8",
    LIVE_SESSION_MAX_SECONDS: String(maxSeconds),
    // A burst shorter than the maximum length, so audio at 20x real time is refused before it could end its session.
    LIVE_BURST_SECONDS: "2",
  });
  server = listen(app);
});
afterAll(async () => {
  await server?.stop();
  await app?.close();
});

describe.skipIf(!ready)("hostile live clients beside a good one", () => {
  test("each hostile client gets its error, the good session its words and task, and health answers throughout", async () => {
    const [good, free, garbageKey, hugeKey, fastKey, longKey, deafKey] = await Promise.all([
      keyOn("pro"),
      keyOn("free"),
      keyOn("pro"),
      keyOn("pro"),
      keyOn("pro"),
      keyOn("pro"),
      keyOn("pro"),
    ]);
    const samples = await speech();
    const all = Promise.all([
      goodSession(good.key, samples),
      refused(server.url, null),
      refused(server.url, free.key),
      garbage(server.url, garbageKey.key),
      hugeFrame(server.url, hugeKey.key),
      tooFast(server.url, fastKey.key),
      pastMaxLength(server.url, longKey.key, maxSeconds),
      neverReads(server.url, deafKey.key),
    ]);
    const [health, [spoken, anonymous, freePlan, garbled, huge, fast, long, deaf]] = await Promise.all([healthMeanwhile(all), all]);

    expect(anonymous.errors).toEqual(["missing_credentials"]);
    expect(anonymous.closeCode).toBe(1008);
    expect(freePlan.errors).toEqual(["insufficient_plan"]);
    expect(freePlan.closeCode).toBe(1008);
    // Seven bad frames, seven errors; the clear after them was answered, so the session went on.
    expect(garbled.errors).toHaveLength(7);
    expect(garbled.events).toContain("input_audio_buffer.cleared");
    expect(huge.errors).toEqual(["event_too_large"]);
    expect(huge.events).toContain("input_audio_buffer.cleared");
    expect(fast.errors.length).toBeGreaterThan(5);
    expect(new Set(fast.errors)).toEqual(new Set(["audio_too_fast"]));
    expect(long.errors).toEqual(["session_max_length"]);
    expect(long.taskId).toBeGreaterThan(0);
    expect(deaf.placeFreed).toBe(true);

    expect(spoken.errors).toBe(0);
    // Spoken at real time: partial text came while it was spoken, before the turn's final text.
    expect(spoken.deltas).toBeGreaterThanOrEqual(1);
    expect(spoken.text.toLowerCase()).toContain("wait no longer");
    expect(spoken.taskId).toBeGreaterThan(0);
    const audio = await app.request("GET", `/api/tasks/${spoken.taskId}/audio`, { token: good.token });
    expect(audio.status).toBe(200);
    expect((await audio.arrayBuffer()).byteLength).toBeGreaterThan(16_000 * 2 * 2);

    expect(health.length).toBeGreaterThan(20);
    expect(health.every((answer) => answer.status === 200)).toBe(true);
    // A stall of the event loop (a decoder on it, a frame parsed on it) would hold an answer for seconds.
    const slowest = Math.max(...health.map((answer) => answer.ms));
    console.log(`health: ${health.length} answers meanwhile, slowest ${slowest.toFixed(0)} ms`);
    expect(slowest).toBeLessThan(2_000);
  }, 60_000);
});
