/**
 * A live session kept as a task (src/live/live-task.ts), read back through the service's HTTP API: finished with the
 * turns as segments (timed words kept), its recording served by the audio route, charged its seconds, shown as
 * begun live in its detail and history, found by search and exported; speakers told apart when asked; admitted
 * past the tasks in progress; nothing for a session that recorded nothing; a recording whose keep died swept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { json, waitForSlotFree, waitForStatus, type User } from "../support/tasks.ts";
import { blobKeys } from "../support/orphan-blobs.ts";
import { tasksService } from "../../src/tasks/index.ts";
import type { Tasks } from "../../src/tasks/service.ts";
import { LiveTasks } from "../../src/live/live-task.ts";
import { openSessionAudio } from "../../src/live/session-audio.ts";
import { noteRecording, sweepUnkeptRecordings, unkeptAfterMs } from "../../src/live/unkept-recordings.ts";
import type { EndedSession, LiveTurn } from "../../src/live/live-session-types.ts";
import { eventDetail } from "../../src/web/app/transcript-extras/event-words.ts";
import { bySystem } from "../../src/core/event.ts";
import { voice } from "./live-task-voices.ts";

let app: TestApp;
let live: LiveTasks;
let tasks: Tasks;
let dir: string;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  const { eventStore, documents, transcripts, blobs } = app.adapters;
  tasks = await tasksService(eventStore, documents, app.service.waitForProjections, transcripts);
  live = new LiveTasks(tasks, blobs, documents, { maxSpeakers: 6 });
  dir = mkdtempSync(join(tmpdir(), "scribe-live-task-"));
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const metadata = () => bySystem("test", crypto.randomUUID());

/** A recording of these pieces of audio, as a session writes it. */
async function recorded(...pieces: Int16Array[]): Promise<{ wavPath: string; durationMs: number }> {
  const audio = await openSessionAudio(dir);
  for (const piece of pieces) audio.append(piece);
  return { durationMs: audio.durationMs, wavPath: await audio.close() };
}

function session(user: User, audio: { wavPath: string; durationMs: number }, turns: LiveTurn[], more: Partial<EndedSession> = {}): EndedSession {
  return {
    sessionId: crypto.randomUUID(),
    userId: user.id,
    ...audio,
    turns,
    engine: null,
    language: null,
    vocabulary: [],
    speakerDiarization: false,
    startedAt: new Date("2026-11-27T14:03:27Z"),
    end: "closed",
    ...more,
  };
}

const word = (text: string, start: number, end: number) => ({ text, start, end, confidence: 0.9 });
const turn = (start: number, end: number, ...words: ReturnType<typeof word>[]): LiveTurn => ({
  start,
  end,
  text: words.map((w) => w.text).join(" "),
  words,
  punctuated: false,
});

type TimedWord = { text: string; start: number; end: number; confidence: number | null };
type Detail = {
  name: string;
  status: string;
  duration: number;
  cost: number | null;
  origin: string | null;
  engine: string | null;
  language: string | null;
  vocabulary: string[];
  summary: string | null;
  segments: { text: string; start: number; end: number; speaker: string | null; words: TimedWord[] }[];
};
type Balance = { remaining_seconds: number; used_seconds: number };

const balanceOf = async (user: User) => (await json<{ balance: Balance }>(await app.request("GET", "/api/user", { token: user.token }))).balance;

describe("a live session kept as a task", () => {
  test("finishes with the turns as segments and their words, its audio, its charge, and says it began live", async () => {
    const user = await app.register();
    const before = await balanceOf(user);
    const audio = await recorded(voice(110, [700, 1200], 3200, 1));
    const bytes = new Uint8Array(await Bun.file(audio.wavPath).arrayBuffer());
    const turns = [turn(200, 1400, word("hello", 200, 700), word("scribe", 800, 1400)), turn(1800, 3100, word("keep", 1800, 2300), word("this", 2400, 3100))];
    const kept = await live.keep(session(user, audio, turns, { engine: "sphinx", language: "en", vocabulary: ["Scribe"] }), metadata());
    expect(kept).not.toBeNull();
    const taskId = kept!.taskId;
    expect(existsSync(audio.wavPath)).toBe(false);

    await waitForStatus(app, user, taskId, "finished");
    const task = await json<Detail>(await app.request("GET", `/api/tasks/${taskId}?include=words`, { token: user.token }));
    expect(task).toMatchObject({ name: "Live transcription 2026-11-27 14:03", duration: 4, cost: 4, origin: "live" });
    expect(task).toMatchObject({ engine: "sphinx", language: "en", vocabulary: ["Scribe"] });
    expect(task.segments.map((s) => [s.text, s.start, s.end, s.speaker])).toEqual([
      ["Hello scribe.", 200, 1400, null],
      ["Keep this.", 1800, 3100, null],
    ]);
    expect(task.segments[1]!.words).toEqual([
      { text: "keep", start: 1800, end: 2300, confidence: 0.9 },
      { text: "this", start: 2400, end: 3100, confidence: 0.9 },
    ]);
    expect(typeof task.summary).toBe("string");

    const served = await app.request("GET", `/api/tasks/${taskId}/audio`, { token: user.token });
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("audio/wav");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(bytes);

    await waitForSlotFree(app, user.id, taskId);
    expect(await balanceOf(user)).toMatchObject({ remaining_seconds: before.remaining_seconds - 4, used_seconds: 4 });

    const history = await json<{ type: string; data: Record<string, unknown> }[]>(
      await app.request("GET", `/api/tasks/${taskId}/history`, { token: user.token }),
    );
    expect(history[0]).toMatchObject({ type: "TaskCreated", data: { origin: "live" } });
    expect(eventDetail(history[0]!)).toBe("from a live transcription");
    expect(history.map((e) => e.type)).toContain("TaskFinished");

    const found = await json<{ data: { task_id: number }[] }>(await app.request("GET", "/api/search?q=scribe", { token: user.token }));
    expect(found.data.map((hit) => hit.task_id)).toContain(taskId);
    const text = await app.request("GET", `/api/tasks/${taskId}/download/txt`, { token: user.token });
    expect(text.status).toBe(200);
    expect(await text.text()).toContain("Keep this");
  });

  test("speakers are told apart on the recording when the session asked", async () => {
    const user = await app.register();
    const a = (seed: number) => voice(110, [700, 1200], 2000, seed);
    const b = (seed: number) => voice(240, [350, 2600], 2000, seed);
    const audio = await recorded(a(1), b(2), a(3), b(4), a(5));
    const turns = [0, 1, 2, 3, 4].map((i) => turn(i * 2000, i * 2000 + 1900, word(`turn${i}`, i * 2000, i * 2000 + 1900)));
    const kept = await live.keep(session(user, audio, turns, { speakerDiarization: true }), metadata());
    const task = await waitForStatus(app, user, kept!.taskId, "finished");
    const speakers = (task as unknown as Detail).segments.map((s) => s.speaker);
    expect(speakers).toEqual(["Speaker 1", "Speaker 2", "Speaker 1", "Speaker 2", "Speaker 1"]);
  });

  test("admitted with 3 tasks already in progress, where an upload is refused", async () => {
    const user = await app.register();
    // Three slots held by tasks in progress (their creations have only just begun, so admission frees none).
    for (const taskId of [900_001, 900_002, 900_003]) await tasks.slots.admit(user.id, taskId, 1, "objstore", metadata());
    const refused = await app.request("POST", "/api/tasks", {
      token: user.token,
      json: { disk: "objstore", name: "Upload", path: `uploads/${user.id}/x/a.wav` },
    });
    expect(refused.status).toBe(429);
    const kept = await live.keep(session(user, await recorded(voice(110, [700, 1200], 1000, 9)), [turn(0, 900, word("still", 0, 900))]), metadata());
    await waitForStatus(app, user, kept!.taskId, "finished");
  });

  test("a finished live task is charged once: its finish and the sweeper of lost releases add nothing", async () => {
    const user = await app.register();
    const kept = await live.keep(session(user, await recorded(voice(110, [700, 1200], 1500, 6)), [turn(0, 1400, word("once", 0, 900))]), metadata());
    await waitForStatus(app, user, kept!.taskId, "finished");
    await waitForSlotFree(app, user.id, kept!.taskId);
    await tasks.slots.releaseEnded(user.id, metadata(), 0);
    expect(await balanceOf(user)).toMatchObject({ used_seconds: 2 });
  });

  test("charged at most what the balance holds: never below zero", async () => {
    const user = await app.register();
    const { remaining_seconds: remaining } = await balanceOf(user);
    const audio = await recorded(voice(110, [700, 1200], 1000, 3));
    // The session ran past what the balance held (it ends the session when it runs out, a moment late at most).
    const kept = await live.keep(session(user, { ...audio, durationMs: (remaining + 30) * 1000 }, []), metadata());
    await waitForStatus(app, user, kept!.taskId, "finished");
    await waitForSlotFree(app, user.id, kept!.taskId);
    expect(await balanceOf(user)).toMatchObject({ remaining_seconds: 0, used_seconds: remaining });
  });

  test("a session that recorded nothing is no task, and its file is removed", async () => {
    const user = await app.register();
    const audio = await recorded();
    expect(await live.keep(session(user, audio, []), metadata())).toBeNull();
    expect(existsSync(audio.wavPath)).toBe(false);
    const list = await json<{ data: unknown[] }>(await app.request("GET", "/api/tasks", { token: user.token }));
    expect(list.data).toEqual([]);
  });

  test("a recording stored by a keep that died before its task is swept; a kept one stays", async () => {
    const user = await app.register();
    const { documents, blobs } = app.adapters;
    const orphan = `uploads/${user.id}/${"a".repeat(32)}/Live_transcription.wav`;
    await noteRecording(documents, orphan, user.id, Date.now());
    await blobs.put(orphan, new Uint8Array(44), { contentType: "audio/wav" });
    const kept = await live.keep(session(user, await recorded(voice(110, [700, 1200], 500, 4)), []), metadata());
    const keptKey = (await json<{ path: string }>(await app.request("GET", `/api/tasks/${kept!.taskId}`, { token: user.token }))).path;

    expect(await sweepUnkeptRecordings(documents, blobs, Date.now())).toBe(0);
    expect(await sweepUnkeptRecordings(documents, blobs, Date.now() + unkeptAfterMs + 1000)).toBe(1);
    const keys = await blobKeys(app, [`uploads/${user.id}/`]);
    expect(keys).toEqual([keptKey]);
  });
});
