import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, expectValidation, getTask, holdsSlot, json, segment, waitForSlotFree, waitForStatus, type Json } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" }); // the task API alone: nothing transcribes these made-up paths
});
afterAll(() => app.close());

const post = (token: string, body: Json) => app.request("POST", "/api/tasks", { token, json: body });
const valid = { disk: "objstore", name: "Interview", path: "uploads/a.mp3" };

describe("POST /api/tasks (spec 4.2)", () => {
  test("201 with exactly id, name, status pending, speaker_diarization and created_at", async () => {
    const user = await app.register();
    const response = await post(user.token, { ...valid, file: "a.mp3", size: 1234, duration: 61, cost: 61, speaker_diarization: true });
    expect(response.status).toBe(201);
    const body = await json(response);
    expect(Object.keys(body).sort()).toEqual(["created_at", "id", "name", "speaker_diarization", "status"]);
    expect(body).toMatchObject({ name: "Interview", status: "pending", speaker_diarization: true });
    expect(Number.isInteger(body.id)).toBe(true);
    expect(body.created_at as string).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/);
    const detail = await getTask(app, user, body.id as number);
    expect(detail).toMatchObject({
      id: body.id,
      name: "Interview",
      file: "a.mp3",
      path: "uploads/a.mp3",
      disk: "objstore",
      size: 1234,
      duration: 61,
      cost: 61,
      status: "pending",
      attempts: 1,
      url: null,
      segments: null,
      speaker_diarization: true,
    });
    // speaker_diarization defaults to false.
    expect((await json(await post(user.token, valid))).speaker_diarization).toBe(false);
  });

  test("every field is validated (422 keyed by field)", async () => {
    const user = await app.register();
    const { disk: _disk, ...noDisk } = valid;
    const { name: _name, ...noName } = valid;
    const { path: _path, ...noPath } = valid;
    await expectValidation(await post(user.token, noDisk), "disk");
    await expectValidation(await post(user.token, noName), "name");
    await expectValidation(await post(user.token, noPath), "path");
    await expectValidation(await post(user.token, { ...valid, disk: "ftp" }), "disk");
    await expectValidation(await post(user.token, { ...valid, name: "" }), "name");
    await expectValidation(await post(user.token, { ...valid, name: "n".repeat(256) }), "name");
    await expectValidation(await post(user.token, { ...valid, file: "f".repeat(256) }), "file");
    await expectValidation(await post(user.token, { ...valid, size: -1 }), "size");
    await expectValidation(await post(user.token, { ...valid, size: 1.5 }), "size");
    await expectValidation(await post(user.token, { ...valid, duration: "long" }), "duration");
    await expectValidation(await post(user.token, { ...valid, cost: -5 }), "cost");
    await expectValidation(await post(user.token, { ...valid, speaker_diarization: "yes" }), "speaker_diarization");
    await expectValidation(await post(user.token, { ...valid, segments: [segment(2000, 1000, "backwards")] }), "segments.0.end");
    await expectValidation(await post(user.token, { ...valid, segments: [{ start: 0, end: 10 }] }), "segments.0.text");
    // None of these took a slot or made a task.
    const list = await json<{ total: number }>(await app.request("GET", "/api/tasks", { token: user.token }));
    expect(list.total).toBe(0);
    expect((await post(user.token, { ...valid, name: "n".repeat(255) })).status).toBe(201);
  });

  test("disks: objstore, remote and videolink; the link is the task's url", async () => {
    const free = await app.register();
    const remote = await createTask(app, free, { disk: "remote", path: "https://media.example.com/a.mp3" });
    const fetched = await getTask(app, free, remote);
    expect(fetched).toMatchObject({ disk: "remote", url: "https://media.example.com/a.mp3" });
    // The fetch worker takes it from pending to waiting at once (and fails it: that host does not resolve).
    expect(["pending", "waiting", "failed"]).toContain(fetched.status as string);
    const objstore = await createTask(app, free);
    expect(await getTask(app, free, objstore)).toMatchObject({ disk: "objstore", url: null });
  });

  test("a video link from a free account is 403; from a pro account it is created", async () => {
    const user = await app.register();
    const link = { ...valid, disk: "videolink", path: "https://video.example.com/watch?v=1" };
    const refused = await post(user.token, link);
    expect(refused.status).toBe(403);
    expect(typeof (await json(refused)).message).toBe("string");
    await app.setPlan(user.id, "pro");
    const created = await post(user.token, link);
    expect(created.status).toBe(201);
    const linkId = (await json<{ id: number }>(created)).id;
    expect(await getTask(app, user, linkId)).toMatchObject({ disk: "videolink", url: link.path });
    // The link's host does not resolve: its task fails and frees its slot (how soon varies, so it is waited for).
    await waitForStatus(app, user, linkId, "failed");
    // The refused attempt took no slot: all three fit.
    for (let i = 0; i < 3; i++) expect((await post(user.token, valid)).status).toBe(201);
    expect((await post(user.token, valid)).status).toBe(429);
  });
});

describe("at most 3 concurrent tasks per user (spec 8)", () => {
  test("20 parallel creates give exactly three 201s and seventeen 429s; another user is unaffected", async () => {
    const user = await app.register();
    const other = await app.register();
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => post(user.token, { ...valid, name: `Parallel ${i}` })));
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(3).fill(201), ...Array(17).fill(429)]);
    for (const refused of responses.filter((r) => r.status === 429)) expect(typeof (await json(refused)).message).toBe("string");
    const list = await json<{ total: number }>(await app.request("GET", "/api/tasks", { token: user.token }));
    expect(list.total).toBe(3);
    expect((await post(user.token, valid)).status).toBe(429);
    const others = await Promise.all(Array.from({ length: 3 }, () => post(other.token, valid)));
    expect(others.map((r) => r.status)).toEqual([201, 201, 201]);
  });

  test("deleting an in-flight task frees its slot at once", async () => {
    const user = await app.register();
    const ids = [await createTask(app, user), await createTask(app, user), await createTask(app, user)];
    expect((await post(user.token, valid)).status).toBe(429);
    expect((await app.request("DELETE", `/api/tasks/${ids[1]}`, { token: user.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await post(user.token, valid)).status).toBe(201);
    expect((await post(user.token, valid)).status).toBe(429);
  });

  test("a task created with segments goes straight to its summary and mind map, finishes and frees its slot", async () => {
    const user = await app.register();
    const segments = [segment(0, 1500, "Hello there."), segment(1500, 4200, "General Kenobi.", { speaker: "B" })];
    const id = await createTask(app, user, { segments });
    const done = await waitForStatus(app, user, id, "finished");
    expect(done.summary).toBe("Hello there. General Kenobi.");
    expect(done.mindmap as string).toStartWith("# Interview\n");
    expect(done.duration).toBe(5); // ceil(4200 ms) when no duration is given
    expect((done.segments as Json[]).map((s) => [s.id, s.start, s.end, s.text, s.speaker])).toEqual([
      [1, 0, 1500, "Hello there.", null],
      [2, 1500, 4200, "General Kenobi.", "B"],
    ]);
    expect((done.segments as Json[])[1]!.tokens).toEqual(["General", "Kenobi."]);
    await waitForSlotFree(app, user.id, id);
    // Its slot is free: three more tasks fit, not two.
    await createTask(app, user);
    await createTask(app, user);
    await createTask(app, user);
    expect((await post(user.token, valid)).status).toBe(429);
  });

  test("a finished task is no longer in flight even before anyone looks", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { segments: [segment(0, 1000, "Hi")], duration: 9 });
    const deadline = Date.now() + 2000;
    while (await holdsSlot(app, user.id, id)) {
      expect(Date.now()).toBeLessThan(deadline);
      await Bun.sleep(10);
    }
    expect(await getTask(app, user, id)).toMatchObject({ status: "finished", duration: 9 });
  });
});
