import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { until } from "../support/eventually.ts";
import { createTask, getTask, json, segment, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { Tasks } from "../../src/tasks/service.ts";
import { applyRetention } from "../../src/retention/retention-job.ts";
import { dayMs } from "../../src/retention/policy.ts";

/**
 * Retention through the API (PUT and GET /api/user) and the job on the embedded service: the job runs here at the
 * times the test gives it, since tasks cannot be made days old (their creation time is the service's clock).
 */

const cap = 400;
let app: TestApp;
let tasks: Tasks;
beforeAll(async () => {
  // Nothing here needs recognising: transcripts are supplied, media is only stored.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", RETENTION_MAX_DAYS: String(cap) });
  tasks = new Tasks(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections, app.adapters.transcripts);
});
afterAll(() => app.close());

const putRetention = (user: User, retention_days: unknown) => app.request("PUT", "/api/user", { token: user.token, json: { retention_days } });
const me = async (user: User) =>
  json<{ retention_days: number | null; retention_max_days: number; name: string }>(await app.request("GET", "/api/user", { token: user.token }));
const notifications = async (user: User) => json<Json[]>(await app.request("GET", "/api/notifications", { token: user.token }));
const retentionNotices = async (user: User) => (await notifications(user)).filter((n) => n.title === "Tasks to be deleted");
const run = (at: number) => applyRetention({ store: app.adapters.eventStore, db: app.adapters.documents, tasks }, new Date(at));
const stored = async (key: string) => (await app.adapters.blobs.head(key)) !== null;

/** A finished task with a supplied transcript and media stored under the owner's upload prefix; its blob keys. */
async function taskWithBlobs(user: User, words: string): Promise<{ id: number; createdAt: number; keys: string[] }> {
  const media = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/call.mp3`;
  await app.adapters.blobs.put(media, new Uint8Array([1, 2, 3]), { contentType: "audio/mpeg" });
  const id = await createTask(app, user, { path: media, segments: [segment(0, 1500, words)] });
  const task = await waitForStatus(app, user, id, "finished");
  const keys = [media];
  for (const event of await app.adapters.eventStore.readStream(taskStream(id))) {
    const transcript = (event.data as { transcript?: { key: string } | null }).transcript;
    if (transcript) keys.push(transcript.key);
  }
  return { id, createdAt: Date.parse(String(task.created_at)), keys };
}

describe("retention_days on PUT and GET /api/user", () => {
  test("none by default; set, shown, changed and turned off again; the cap is shown", async () => {
    const user = await app.register();
    expect(await me(user)).toMatchObject({ retention_days: null, retention_max_days: cap });
    const set = await putRetention(user, 30);
    expect(set.status).toBe(200);
    expect((await me(user)).retention_days).toBe(30);
    expect((await putRetention(user, cap)).status).toBe(200);
    expect((await me(user)).retention_days).toBe(cap);
    expect((await putRetention(user, null)).status).toBe(200);
    expect((await me(user)).retention_days).toBeNull();
    // Left out, it stays as it is; the other fields change without it.
    await putRetention(user, 7);
    expect((await app.request("PUT", "/api/user", { token: user.token, json: { name: "Still Seven" } })).status).toBe(200);
    expect(await me(user)).toMatchObject({ retention_days: 7, name: "Still Seven" });
  });

  test("hostile values are 422 on retention_days, naming the cap, and change nothing", async () => {
    const user = await app.register();
    await putRetention(user, 5);
    const hostile: unknown[] = [0, -1, 1e9, "7", 7.5, cap + 1, 1e308, 2 ** 53, -0.5, true, "", "null", [7], { days: 7 }, { __proto__: { days: 7 } }];
    for (const value of hostile) {
      const response = await putRetention(user, value);
      const body = await json<{ message: string; errors?: Record<string, string[]> }>(response);
      expect({ value, status: response.status }).toEqual({ value, status: 422 });
      expect({ value, errors: body.errors?.retention_days }).toEqual({ value, errors: [expect.stringContaining(`from 1 to ${cap}`)] });
    }
    // A number too long for a double, and one written with an exponent, as raw JSON.
    const raws = [
      '{"retention_days": 1e400}',
      `{"retention_days": ${"9".repeat(400)}}`,
      '{"retention_days": {"__proto__": {"days": 7}}}',
      '{"__proto__": {"retention_days": 1}, "constructor": {"prototype": {"retention_days": 1}}}',
      '{"retention_days": 7e0}',
    ];
    for (const raw of raws) {
      const response = await app.request("PUT", "/api/user", { token: user.token, body: raw, headers: { "content-type": "application/json" } });
      // A body naming `__proto__` is refused whole (src/http/json-body.ts), never read through a prototype.
      if (raw.includes("7e0")) expect(response.status).toBe(200);
      else expect({ raw: raw.slice(0, 30), status: response.status }).toEqual({ raw: raw.slice(0, 30), status: 422 });
    }
    expect((await me(user)).retention_days).toBe(7);
    // A form's fields are text: retention is set with JSON (docs/api.md), and a form that sends it is refused whole.
    const form = new FormData();
    form.append("name", "Not Renamed");
    form.append("retention_days", "30");
    const multipart = await app.request("PUT", "/api/user", { token: user.token, body: form });
    expect(multipart.status).toBe(422);
    expect(await me(user)).toMatchObject({ retention_days: 7, name: expect.not.stringContaining("Not Renamed") });
  });
});

describe("the retention job", () => {
  test("warns once a day ahead, then deletes what is past its retention through the tasks' own delete; the rest stays", async () => {
    const days = 10;
    const owner = await app.register();
    const old = await taskWithBlobs(owner, "Old and private words.");
    const young = await taskWithBlobs(owner, "Young words.");
    // Others: one without a retention, one with a long one; their tasks are as old as the owner's.
    const keeper = await app.register();
    const patient = await app.register();
    const kept = [await taskWithBlobs(keeper, "Kept forever."), await taskWithBlobs(patient, "Kept a year.")];
    expect((await putRetention(owner, days)).status).toBe(200);
    expect((await putRetention(patient, 365)).status).toBe(200);

    // Between the two tasks' creations, a day before the old one's retention ends: it alone is announced.
    const between = (old.createdAt + young.createdAt) / 2;
    expect(young.createdAt).toBeGreaterThan(old.createdAt);
    const warnedAt = between + (days - 1) * dayMs;
    expect(await run(warnedAt - dayMs)).toEqual({ warned: 0, deleted: 0 });
    expect(await run(warnedAt)).toEqual({ warned: 1, deleted: 0 });
    // The job runs every hour: the same batch is never announced again.
    for (let hour = 1; hour < 24; hour += 6) expect(await run(warnedAt + hour * 60 * 60_000)).toEqual({ warned: 0, deleted: 0 });
    const notices = await until("the retention notice", async () => {
      const found = await retentionNotices(owner);
      return found.length > 0 && found;
    });
    expect(notices).toHaveLength(1);
    expect(notices[0]!.message).toBe(
      "1 task will be deleted tomorrow under your retention of 10 days. Download what you want to keep, or change the retention on your account page.",
    );
    expect((await getTask(app, owner, old.id)).id).toBe(old.id);

    // A day later the batch goes, and the young task, a day from its own end by then, is announced in turn.
    expect(await run(warnedAt + dayMs)).toEqual({ warned: 1, deleted: 1 });
    expect((await app.request("GET", `/api/tasks/${old.id}`, { token: owner.token })).status).toBe(404);
    expect((await getTask(app, owner, young.id)).id).toBe(young.id);
    const deleted = (await app.adapters.eventStore.readStream(taskStream(old.id))).at(-1)!;
    expect({ type: deleted.type, system: deleted.metadata.system }).toEqual({ type: "TaskDeleted", system: "retention" });
    await expectNoOrphanBlobs(app);
    for (const key of old.keys) expect({ key, stored: await stored(key) }).toEqual({ key, stored: false });
    for (const key of young.keys) expect({ key, stored: await stored(key) }).toEqual({ key, stored: true });
    await until("the second notice", async () => (await retentionNotices(owner)).length === 2);

    // The other accounts: nothing deleted, nothing announced.
    for (const [user, task] of [
      [keeper, kept[0]!],
      [patient, kept[1]!],
    ] as const) {
      expect((await getTask(app, user, task.id)).id).toBe(task.id);
      for (const key of task.keys) expect(await stored(key)).toBe(true);
      expect(await retentionNotices(user)).toEqual([]);
    }
  }, 60_000);

  test("an account with more tasks than one run looks at: the notice counts them all, and the next runs delete the rest", async () => {
    const owner = await app.register();
    const first = await taskWithBlobs(owner, "One.");
    const others = [await taskWithBlobs(owner, "Two."), await taskWithBlobs(owner, "Three.")];
    expect((await putRetention(owner, 5)).status).toBe(200);
    const warnedAt = others[1]!.createdAt + 4 * dayMs;
    const runOfOne = (at: number) => applyRetention({ store: app.adapters.eventStore, db: app.adapters.documents, tasks, tasksPerRun: 1 }, new Date(at));
    expect(await runOfOne(warnedAt)).toEqual({ warned: 1, deleted: 0 });
    const notice = await until("the retention notice", async () => (await retentionNotices(owner))[0]);
    expect(String(notice.message)).toStartWith("3 tasks will be deleted tomorrow under your retention of 5 days.");
    expect(await runOfOne(warnedAt + dayMs)).toEqual({ warned: 0, deleted: 1 });
    expect((await app.request("GET", `/api/tasks/${first.id}`, { token: owner.token })).status).toBe(404);
    for (const hours of [1, 2]) expect(await runOfOne(warnedAt + dayMs + hours * 60 * 60_000)).toEqual({ warned: 0, deleted: 1 });
    expect(await runOfOne(warnedAt + dayMs + 3 * 60 * 60_000)).toEqual({ warned: 0, deleted: 0 });
    expect(await retentionNotices(owner)).toHaveLength(1);
  }, 30_000);

  test("turning retention off before the day of notice is over keeps the announced tasks", async () => {
    const owner = await app.register();
    const task = await taskWithBlobs(owner, "Saved in time.");
    expect((await putRetention(owner, 2)).status).toBe(200);
    const warnedAt = task.createdAt + dayMs;
    expect((await run(warnedAt)).warned).toBe(1);
    expect((await putRetention(owner, null)).status).toBe(200);
    expect(await run(warnedAt + 5 * dayMs)).toEqual({ warned: 0, deleted: 0 });
    expect((await getTask(app, owner, task.id)).id).toBe(task.id);
  }, 30_000);
});
