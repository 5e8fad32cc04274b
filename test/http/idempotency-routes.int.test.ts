import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { holdsSlot, json, taskCommand, waitForSlotFree, type Json, type User } from "../support/tasks.ts";
import { completeBody, sign, toneFile, uploadParts } from "../support/uploads.ts";
import { userStream } from "../../src/accounts/events.ts";

/** Idempotency-Key on the operations that take it: POST /api/tasks, /api/uploads/complete and /api/folders. */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" }); // nothing transcribes these made-up paths
});
afterAll(() => app.close());

const task = { disk: "objstore", name: "Interview", path: "uploads/a.mp3", duration: 60 };
const call = (method: string, path: string, user: User, body: Json, key?: string) =>
  app.request(method, path, { token: user.token, json: body, headers: key === undefined ? {} : { "idempotency-key": key } });
const createTask = (user: User, body: Json, key?: string) => call("POST", "/api/tasks", user, body, key);
const taskCount = async (user: User) => (await json<{ total: number }>(await app.request("GET", "/api/tasks", { token: user.token }))).total;
const snapshot = async (response: Response) => ({
  status: response.status,
  body: await response.text(),
  contentType: response.headers.get("content-type"),
  replayed: response.headers.get("idempotent-replayed"),
});

describe("POST /api/tasks with Idempotency-Key", () => {
  test("a retry gets the first answer byte for byte with Idempotent-Replayed: one task, one slot, one charge", async () => {
    const user = await app.register();
    const first = await snapshot(await createTask(user, task, "create-1"));
    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    const retries = [await createTask(user, task, "create-1"), await createTask(user, task, '"create-1"')];
    for (const retry of retries) expect(await snapshot(retry)).toEqual({ ...first, replayed: "true" });
    expect(await taskCount(user)).toBe(1);

    // The replays took no slot: two more tasks fit under the limit of 3, a third does not.
    expect((await createTask(user, task)).status).toBe(201);
    expect((await createTask(user, task)).status).toBe(201);
    expect((await createTask(user, task)).status).toBe(429);
    // ...and a replay is still the first answer, not the 429 the limit gives now.
    expect(await snapshot(await createTask(user, task, "create-1"))).toEqual({ ...first, replayed: "true" });

    // The task finishes (what the pipeline does) and is charged once, whatever the retries before.
    const id = (JSON.parse(first.body) as { id: number }).id;
    expect(await holdsSlot(app, user.id, id)).toBe(true);
    await taskCommand(app, id, { type: "StartTranscription" });
    await taskCommand(app, id, { type: "FinishTask", transcript: null, duration: 60, cost: 60, summary: "s", mindmap: "m" });
    await waitForSlotFree(app, user.id, id);
    const charges = (await app.adapters.eventStore.readStream(userStream(user.id))).filter(
      (e) => e.type === "SecondsCharged" && (e.data as Json).taskId === id,
    );
    expect(charges.length).toBe(1);
    // Replayed after the task moved on: still the answer as it was given (status pending).
    expect(await snapshot(await createTask(user, task, "create-1"))).toEqual({ ...first, replayed: "true" });
    expect(await taskCount(user)).toBe(3);
  });

  test("the same key with another body is 422, and makes no task", async () => {
    const user = await app.register();
    expect((await createTask(user, task, "k")).status).toBe(201);
    const other = await createTask(user, { ...task, name: "Another" }, "k");
    expect(other.status).toBe(422);
    expect(Object.keys((await json<{ errors: Json }>(other)).errors)).toEqual(["Idempotency-Key"]);
    // The same key on another operation is another request too.
    expect((await call("POST", "/api/folders", user, { name: "Work" }, "k")).status).toBe(422);
    expect(await taskCount(user)).toBe(1);
  });

  test("eight at once with one key make one task; each other answer is 409 or the replay", async () => {
    const user = await app.register();
    const responses = await Promise.all(Array.from({ length: 8 }, () => createTask(user, task, "burst")));
    const statuses = responses.map((r) => r.status);
    for (const status of statuses) expect([201, 409]).toContain(status);
    const fresh = responses.filter((r) => r.status === 201 && r.headers.get("idempotent-replayed") === null);
    expect(fresh.length).toBe(1);
    const ids = new Set(await Promise.all(responses.filter((r) => r.status === 201).map(async (r) => (await json<{ id: number }>(r)).id)));
    expect(ids.size).toBe(1);
    expect(await taskCount(user)).toBe(1);
  });

  test("another user's same key is independent; requests without the header are unaffected", async () => {
    const ann = await app.register();
    const bob = await app.register();
    const annFirst = await json<{ id: number }>(await createTask(ann, task, "shared-key"));
    const bobFirst = await createTask(bob, task, "shared-key");
    expect(bobFirst.status).toBe(201);
    expect(bobFirst.headers.get("idempotent-replayed")).toBeNull();
    expect((await json<{ id: number }>(bobFirst)).id).not.toBe(annFirst.id);
    // Bob cannot read Ann's answer through her key either.
    expect(await taskCount(bob)).toBe(1);
    const plain = [await createTask(ann, task), await createTask(ann, task)];
    for (const response of plain) expect(response.headers.get("idempotent-replayed")).toBeNull();
    expect(await taskCount(ann)).toBe(3);
  });

  test("a refusal of processing is kept: the 403 of a video link on the Free plan is replayed even after an upgrade", async () => {
    const user = await app.register();
    const link = { ...task, disk: "videolink", path: "https://video.example.com/watch?v=1" };
    const refused = await snapshot(await createTask(user, link, "video"));
    expect(refused.status).toBe(403);
    await app.setPlan(user.id, "pro");
    expect(await snapshot(await createTask(user, link, "video"))).toEqual({ ...refused, replayed: "true" });
    expect((await createTask(user, link, "video-2")).status).toBe(201);
  });

  test("hostile keys: over 255 characters, empty or not ASCII are 422 and create nothing", async () => {
    const user = await app.register();
    for (const key of ["k".repeat(256), "k".repeat(8000), "", '""', "\u00e9"]) {
      const response = await createTask(user, task, key);
      expect(response.status).toBe(422);
      expect(Object.keys((await json<{ errors: Json }>(response)).errors)).toEqual(["Idempotency-Key"]);
    }
    expect(await taskCount(user)).toBe(0);
    expect((await createTask(user, task, "k".repeat(255))).status).toBe(201);
  });

  test("before processing, nothing is kept: a 401 and an invalid body leave the key free", async () => {
    const user = await app.register();
    const anonymous = await app.request("POST", "/api/tasks", { json: task, headers: { "idempotency-key": "early" } });
    expect(anonymous.status).toBe(401);
    expect((await createTask(user, { ...task, disk: "ftp" }, "early")).status).toBe(422);
    const created = await createTask(user, task, "early");
    expect(created.status).toBe(201);
    expect(created.headers.get("idempotent-replayed")).toBeNull();
  });
});

describe("POST /api/folders with Idempotency-Key", () => {
  test("a retry is the first 201 again, not the 422 of a name already taken", async () => {
    const user = await app.register();
    const first = await snapshot(await call("POST", "/api/folders", user, { name: "Work" }, "folder-1"));
    expect(first.status).toBe(201);
    expect(await snapshot(await call("POST", "/api/folders", user, { name: "Work" }, "folder-1"))).toEqual({ ...first, replayed: "true" });
    // Without the key, the same request is a second creation, refused as a duplicate.
    expect((await call("POST", "/api/folders", user, { name: "Work" })).status).toBe(422);
    expect((await call("POST", "/api/folders", user, { name: "Home" }, "folder-1")).status).toBe(422);
    const list = await json<{ folders: unknown[] }>(await app.request("GET", "/api/folders", { token: user.token }));
    expect(list.folders.length).toBe(1);
  });
});

describe("POST /api/uploads/complete with Idempotency-Key", () => {
  test("already idempotent by upload: the key's replay is still the first answer byte for byte, one task", async () => {
    const user = await app.register();
    const tone = await toneFile("mp3");
    const session = await sign(app, user, { file: "call.mp3", content_type: "audio/mpeg", size: tone.byteLength });
    await uploadParts(app, user, session, tone);
    const body = completeBody(session, "call.mp3", "audio/mpeg", tone.byteLength);
    const first = await snapshot(await call("POST", "/api/uploads/complete", user, body, "upload-1"));
    expect(first.status).toBe(201);
    expect(await snapshot(await call("POST", "/api/uploads/complete", user, body, "upload-1"))).toEqual({ ...first, replayed: "true" });
    // Without the key, the upload's own idempotence answers with the same task.
    const plain = await json<{ task: { id: number } }>(await call("POST", "/api/uploads/complete", user, body));
    expect(plain.task.id).toBe((JSON.parse(first.body) as { task: { id: number } }).task.id);
    expect((await call("POST", "/api/uploads/complete", user, { ...body, name: "Renamed" }, "upload-1")).status).toBe(422);
    expect(await taskCount(user)).toBe(1);
  });
});
