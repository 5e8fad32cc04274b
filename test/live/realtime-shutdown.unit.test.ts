/**
 * OpenSessions, the live sessions' stop (open-sessions.ts), on sessions with fake ports: each ends as a task with the
 * shutdown's `error`, `session.closed` and 1001; a session that opens once the stop began ends at once; and past the
 * grace the stop returns, having closed the sockets of the sessions still ending.
 */
import { expect, test } from "bun:test";
import type { ServerEvent } from "../../src/live/server-events.ts";
import type { SessionPorts } from "../../src/live/session-ports.ts";
import { LiveSession } from "../../src/live/session-runtime.ts";
import { OpenSessions } from "../../src/live/open-sessions.ts";
import { audioOf, FakeAudio, FakeDetector, FakeRecognizer } from "./realtime-session-fakes.ts";

type Client = { session: LiveSession; sent: ServerEvent[]; closes: { code: number; reason: string }[] };

let count = 0;

/** A session held by `sessions`, with `seconds` of speech appended at 16 kHz; `keep` resolves when the test says. */
async function open(sessions: OpenSessions, seconds: number, keep: () => Promise<{ taskId: number } | null>): Promise<Client> {
  const sent: ServerEvent[] = [];
  const closes: Client["closes"] = [];
  const id = `sess_${++count}`;
  const ports: SessionPorts = {
    send: (event) => sent.push(event),
    close: (code, reason) => closes.push({ code, reason }),
    openRecognizer: async () => new FakeRecognizer(),
    detector: () => new FakeDetector(),
    resampler: () => ({ push: (samples) => samples }),
    openAudio: async () => new FakeAudio(),
    keep,
    remainingSeconds: async () => 3600,
    release: async () => {},
    offer: { defaultEngine: "sphinx", engines: ["sphinx"], languagesOf: () => ["en"] },
    limits: { maxSessionMs: 600_000, idleTimeoutMs: 60_000, burstMs: 60_000, partialEveryMs: 1000, balanceEveryMs: 60_000 },
    now: () => 0,
    observe: { audioReceived() {}, partialLatency() {}, ended: () => sessions.remove(id) },
  };
  const session = sessions.add(new LiveSession(id, 1, ports, 3600), ports.close);
  await session.whenStarted();
  const send = (event: unknown) => session.receive(JSON.stringify(event));
  send({ type: "session.update", session: { type: "transcription", audio: { input: { format: { type: "audio/pcm", rate: 16000 } } } } });
  const samples = audioOf(seconds * 1000, true);
  if (samples.length > 0) send({ type: "input_audio_buffer.append", audio: Buffer.from(samples.buffer).toString("base64") });
  await Bun.sleep(10);
  return { session, sent, closes };
}

const types = (client: Client) => client.sent.map((event) => event.type);
const errorCode = (client: Client) => client.sent.flatMap((event) => (event.type === "error" ? [event.error.code] : []));

test("every open session ends as a task: the shutdown's error, its open turn finished, session.closed, close 1001", async () => {
  const sessions = new OpenSessions();
  const clients = [await open(sessions, 1, async () => ({ taskId: 7 })), await open(sessions, 2, async () => ({ taskId: 8 }))];
  expect(sessions.stopping).toBe(false);
  expect(await sessions.stop(1000)).toBe(true);
  expect(sessions.stopping).toBe(true);
  for (const [i, client] of clients.entries()) {
    expect(errorCode(client)).toEqual(["server_shutdown"]);
    const after = types(client).slice(types(client).indexOf("error"));
    expect(after).toEqual(["error", "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed", "session.closed"]);
    expect(client.sent.at(-1)).toMatchObject({ type: "session.closed", task_id: 7 + i });
    expect(client.closes).toEqual([{ code: 1001, reason: "server_shutdown" }]);
  }
  // Ended sessions are let go; a second stop has nothing left to do and answers as the first.
  expect(await sessions.stop(1000)).toBe(true);
});

test("a session that opens once the stop has begun is ended at once", async () => {
  const sessions = new OpenSessions();
  await sessions.stop(1000);
  const late = await open(sessions, 0, async () => null);
  await Bun.sleep(20);
  expect(errorCode(late)).toEqual(["server_shutdown"]);
  expect(late.sent.at(-1)).toMatchObject({ type: "session.closed", task_id: null });
  expect(late.closes).toEqual([{ code: 1001, reason: "server_shutdown" }]);
});

test("past the grace the stop returns, the sockets of sessions still being kept closed with 1001", async () => {
  const sessions = new OpenSessions();
  const { promise: kept, resolve: keepNow } = Promise.withResolvers<{ taskId: number }>();
  const slow = await open(sessions, 1, () => kept);
  const quick = await open(sessions, 1, async () => ({ taskId: 9 }));
  const startedAt = performance.now();
  expect(await sessions.stop(100)).toBe(false);
  expect(performance.now() - startedAt).toBeLessThan(1000);
  expect(slow.closes).toEqual([{ code: 1001, reason: "server_shutdown" }]);
  expect(types(slow)).not.toContain("session.closed");
  expect(quick.sent.at(-1)).toMatchObject({ type: "session.closed", task_id: 9 });
  keepNow({ taskId: 10 });
  await slow.session.end({ reason: "server_shutdown", notice: null, closeCode: 1001, announce: true });
});
