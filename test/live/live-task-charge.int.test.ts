/**
 * A live session's task is charged as it is created (TaskSlots.admitLive): the speaker already has the transcript, so
 * deleting the task before it finishes, or its failing, costs the same, and nothing charges it twice. On a service
 * without workers, so that the task stays in progress until the test moves it on.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { failTask, holdsSlot, json, taskCommand, type User } from "../support/tasks.ts";
import { tasksService } from "../../src/tasks/index.ts";
import type { Tasks } from "../../src/tasks/service.ts";
import { LiveTasks } from "../../src/live/live-task.ts";
import { openSessionAudio } from "../../src/live/session-audio.ts";
import type { EndedSession } from "../../src/live/live-session-types.ts";
import { bySystem } from "../../src/core/event.ts";
import { voice } from "./live-task-voices.ts";

let app: TestApp;
let tasks: Tasks;
let live: LiveTasks;
let dir: string;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, ROLES: "api,projections" });
  const { eventStore, documents, transcripts, blobs } = app.adapters;
  tasks = await tasksService(eventStore, documents, app.service.waitForProjections, transcripts);
  live = new LiveTasks(tasks, blobs, documents, { maxSpeakers: 6 });
  dir = mkdtempSync(join(tmpdir(), "scribe-live-charge-"));
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const metadata = () => bySystem("test", crypto.randomUUID());
const balanceOf = async (user: User) =>
  (await json<{ balance: { remaining_seconds: number; used_seconds: number } }>(await app.request("GET", "/api/user", { token: user.token }))).balance;

/** A session of `ms` of voice with one turn, kept as a task: its id. */
async function keptSession(user: User, ms: number): Promise<number> {
  const audio = await openSessionAudio(dir);
  audio.append(voice(110, [700, 1200], ms, 7));
  const durationMs = audio.durationMs;
  const ended: EndedSession = {
    sessionId: crypto.randomUUID(),
    userId: user.id,
    wavPath: await audio.close(),
    durationMs,
    turns: [{ start: 0, end: ms, text: "paid", words: [], punctuated: false }],
    engine: null,
    language: null,
    vocabulary: [],
    speakerDiarization: false,
    startedAt: new Date(),
    end: "closed",
  };
  return (await live.keep(ended, metadata()))!.taskId;
}

describe("a live task's charge", () => {
  test("a task deleted at once, before it finishes, is charged its seconds all the same, once", async () => {
    const user = await app.register();
    const before = await balanceOf(user);
    const taskId = await keptSession(user, 2500);
    // What a client that read `session.closed {task_id}` could do straight away, the transcript already in hand.
    expect((await json<{ status: string }>(await app.request("GET", `/api/tasks/${taskId}`, { token: user.token }))).status).toBe("pending");
    expect((await app.request("DELETE", `/api/tasks/${taskId}`, { token: user.token })).status).toBe(200);
    expect(await holdsSlot(app, user.id, taskId)).toBe(false);
    expect(await balanceOf(user)).toMatchObject({ remaining_seconds: before.remaining_seconds - 3, used_seconds: 3 });
    // The sweeper of releases that were lost charges nothing more.
    await tasks.slots.releaseEnded(user.id, metadata(), 0);
    expect(await balanceOf(user)).toMatchObject({ used_seconds: 3 });
  });

  test("a task that fails, is retried and finishes is charged once: its recording, not each attempt", async () => {
    const user = await app.register();
    const taskId = await keptSession(user, 1500);
    await failTask(app, taskId);
    expect((await app.request("PATCH", `/api/tasks/${taskId}/retry`, { token: user.token })).status).toBe(200);
    await taskCommand(app, taskId, { type: "FinishTask", transcript: null, duration: 2, cost: 2, summary: null, mindmap: null, attempt: 2 });
    // No workers here: the sweeper frees both attempts' slots, charging as the task-slots worker would.
    await tasks.slots.releaseEnded(user.id, metadata(), 0);
    expect(await holdsSlot(app, user.id, taskId)).toBe(false);
    expect(await balanceOf(user)).toMatchObject({ used_seconds: 2 });
  });
});
