import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createFolder, createTask, expectValidation, getTask, json, segment, seedTasks, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" }); // the task API alone: nothing transcribes these made-up paths
});
afterAll(() => app.close());

const patch = (user: User, id: number, body: Json) => app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: body });
const version = (task: Json) => (task.export as { version: string }).version;

/** A finished task with a two-segment transcript. */
async function transcribed(user: User): Promise<number> {
  const id = await createTask(app, user, { segments: [segment(0, 1000, "One two."), segment(1000, 2500, "Three.")], duration: 3 });
  await waitForStatus(app, user, id, "finished");
  return id;
}

describe("GET /api/tasks/{id} (spec 2.1)", () => {
  test("has every field of 2.1 (plus speaker_diarization, index, failure_reason and the summary's freshness), with export metadata", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const task = await getTask(app, user, id);
    const spec21 = [
      "id",
      "name",
      "file",
      "path",
      "disk",
      "size",
      "duration",
      "cost",
      "status",
      "attempts",
      "quality",
      "created_at",
      "updated_at",
      "summary",
      "mindmap",
      "folder",
      "tags",
      "url",
      "segments",
      "export",
    ];
    const beyond = ["speaker_diarization", "index", "failure_reason", "summary_outdated", "summary_failure", "engine", "language", "vocabulary", "origin"];
    expect(Object.keys(task).sort()).toEqual([...spec21, ...beyond].sort());
    expect(task).toMatchObject({
      id,
      name: "Interview",
      file: "",
      path: "uploads/a.mp3",
      disk: "objstore",
      size: null,
      duration: 3,
      cost: null,
      status: "finished",
      attempts: 1,
      quality: null,
      summary: "One two. Three.",
      folder: null,
      tags: [],
      url: null,
      index: null,
      failure_reason: null,
      summary_outdated: false,
      summary_failure: null,
    });
    expect(task.mindmap as string).toStartWith("# Interview\n"); // a supplied transcript goes straight to summary and mind map
    expect(task.updated_at as string).toMatch(/^\d{4}-\d\d-\d\dT.*(Z|[+-]\d\d:\d\d)$/);
    expect(Date.parse(task.updated_at as string)).toBeGreaterThanOrEqual(Date.parse(task.created_at as string));
    expect(Object.keys((task.segments as Json[])[0]!).sort()).toEqual(["end", "id", "speaker", "start", "text", "tokens"]);
    const exported = task.export as Json;
    expect(exported.allowed_formats).toEqual(["txt", "srt", "vtt", "csv", "json", "pdf", "docx"]);
    expect(exported.heavy_formats).toEqual(["pdf", "docx"]);
    expect(exported.version as string).toMatch(/^\d{17}$/);
  });

  test("export.version changes with the transcript (segments, text) and not on rename", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const v1 = version(await getTask(app, user, id));
    const renamed = await json(await patch(user, id, { name: "Renamed" }));
    expect(renamed.name).toBe("Renamed");
    expect(version(renamed)).toBe(v1);
    const edited = await json(await patch(user, id, { segments: [segment(0, 900, "Edited.")] }));
    const v2 = version(edited);
    expect(v2).toMatch(/^\d{17}$/);
    expect(BigInt(v2)).toBeGreaterThan(BigInt(v1));
    const texted = await json(await patch(user, id, { text: "Edited again." }));
    const v3 = version(texted);
    expect(BigInt(v3)).toBeGreaterThan(BigInt(v2));
    expect(version(await json(await patch(user, id, { quality: 4, index: 2, folder: null })))).toBe(v3);
    expect(version(await getTask(app, user, id))).toBe(v3);
  });
});

describe("PATCH /api/tasks/{id} (spec 4.2)", () => {
  test("each field, returning the full task", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await createFolder(app, user, "Work");
    const response = await patch(user, id, { name: "Board call", folder: "Work", duration: 120, cost: 90, quality: 5, index: 3 });
    expect(response.status).toBe(200);
    const task = await json(response);
    expect(task).toMatchObject({ id, name: "Board call", folder: "Work", tags: ["Work"], duration: 120, cost: 90, quality: 5, index: 3 });
    expect(task.export).toBeDefined();
    expect((await patch(user, id, { quality: 0 })).status).toBe(200);
    const out = await json(await patch(user, id, { folder: null }));
    expect(out).toMatchObject({ folder: null, tags: [], quality: 0, name: "Board call" });
    const list = await json<{ data: Json[] }>(await app.request("GET", "/api/tasks?folder=Uncategorized", { token: user.token }));
    expect(list.data.map((t) => t.id)).toEqual([id]);
    // A folder is found case-insensitively and the task shows its stored name.
    expect((await json(await patch(user, id, { folder: "work" }))).folder).toBe("Work");
  });

  test("segments replace the transcript entirely; text replaces it line by line", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const replaced = await json(await patch(user, id, { segments: [segment(0, 400, "Only one", { speaker: "A", id: 9 })] }));
    expect(replaced.segments).toEqual([{ id: 9, start: 0, end: 400, text: "Only one", speaker: "A", tokens: ["Only", "one"] }]);
    const three = [segment(0, 100, "a"), segment(100, 200, "b"), segment(200, 300, "c")];
    await patch(user, id, { segments: three });
    const texted = await json(await patch(user, id, { text: "first line\nsecond line\nthird" }));
    expect((texted.segments as Json[]).map((s) => [s.start, s.end, s.text])).toEqual([
      [0, 100, "first line"],
      [100, 200, "second line"],
      [200, 300, "third"],
    ]);
    const body = await expectValidation(await patch(user, id, { text: "only\ntwo lines" }), "text");
    expect(JSON.stringify(body.errors)).toContain("one line per segment");
    expect(await expectValidation(await patch(user, id, { text: "a\nb\nc\nd" }), "text")).toBeDefined();
    expect((await getTask(app, user, id)).segments).toEqual(texted.segments);
  });

  test("bad values are 422 keyed by field", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    await expectValidation(await patch(user, id, { segments: [segment(0, 10, "ok"), segment(5000, 4000, "backwards")] }), "segments.1.end");
    await expectValidation(await patch(user, id, { segments: [segment(0.5, 10, "fractional")] }), "segments.0.start");
    await expectValidation(await patch(user, id, { segments: [segment(0, 10.25, "fractional")] }), "segments.0.end");
    await expectValidation(await patch(user, id, { segments: [{ start: 0, end: 10 }] }), "segments.0.text");
    expect((await patch(user, id, { segments: "nope" })).status).toBe(422);
    await expectValidation(await patch(user, id, { quality: 6 }), "quality");
    await expectValidation(await patch(user, id, { quality: -1 }), "quality");
    await expectValidation(await patch(user, id, { quality: 2.5 }), "quality");
    await expectValidation(await patch(user, id, { name: "" }), "name");
    await expectValidation(await patch(user, id, { name: "x".repeat(256) }), "name");
    await expectValidation(await patch(user, id, { duration: -1 }), "duration");
    await expectValidation(await patch(user, id, { cost: "free" }), "cost");
    // JSON numbers as numbers: a numeric string is not converted (segments.ts: why).
    await expectValidation(await patch(user, id, { segments: [{ start: "0", end: 10, text: "text" }] }), "segments.0.start");
    await expectValidation(await patch(user, id, { duration: "3" }), "duration");
    await expectValidation(await patch(user, id, { index: 1.5 }), "index");
    await expectValidation(await patch(user, id, { folder: "Nowhere" }), "folder");
    const task = await getTask(app, user, id);
    expect(task).toMatchObject({ name: "Interview", quality: null, duration: 3, cost: null, folder: null });
    expect((task.segments as Json[]).length).toBe(2);
  });

  test("nothing is half-applied: a good name with a bad folder, or good segments with a bad quality, change nothing", async () => {
    const user = await app.register();
    const id = await transcribed(user);
    const before = await getTask(app, user, id);
    await expectValidation(await patch(user, id, { name: "New name", folder: "Missing" }), "folder");
    await expectValidation(await patch(user, id, { name: "New name", quality: 9 }), "quality");
    await expectValidation(await patch(user, id, { segments: [segment(0, 5, "new")], quality: 9 }), "quality");
    await expectValidation(await patch(user, id, { name: "New name", text: "one line" }), "text");
    await expectValidation(await patch(user, id, { name: "New name", duration: 50, segments: [segment(9, 1, "bad")] }), "segments.0.end");
    expect(await getTask(app, user, id)).toEqual(before);
  });
});

describe("DELETE /api/tasks/{id} and the bulk routes", () => {
  test("delete: 200 with a message, then 404 everywhere", async () => {
    const user = await app.register();
    // With a transcript, so that the delete has a blob to delete.
    const id = await createTask(app, user, { segments: [segment(0, 1000, "Soon gone.")] });
    const response = await app.request("DELETE", `/api/tasks/${id}`, { token: user.token });
    expect(response.status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect(typeof (await json(response)).message).toBe("string");
    expect((await app.request("GET", `/api/tasks/${id}`, { token: user.token })).status).toBe(404);
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: user.token })).status).toBe(404);
    expect((await patch(user, id, { name: "x" })).status).toBe(404);
    expect((await json<{ total: number }>(await app.request("GET", "/api/tasks", { token: user.token }))).total).toBe(0);
  });

  test("bulk delete: deleted_count, other users' and unknown ids ignored, bad ids 422", async () => {
    const user = await app.register();
    const other = await app.register();
    const mine = await seedTasks(app, user.id, ["a", "b", "c"]);
    const [theirs] = await seedTasks(app, other.id, ["theirs"]);
    const bulk = (ids: unknown) => app.request("DELETE", "/api/tasks/bulk", { token: user.token, json: { ids } });
    await expectValidation(await bulk([]), "ids");
    await expectValidation(await bulk(["x"]), "ids.0");
    await expectValidation(await bulk([1.5]), "ids.0");
    await expectValidation(await app.request("DELETE", "/api/tasks/bulk", { token: user.token, json: {} }), "ids");
    const response = await bulk([mine[0], mine[1], mine[1], theirs, 999_999_999]);
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.deleted_count).toBe(2);
    await expectNoOrphanBlobs(app);
    expect(typeof body.message).toBe("string");
    expect((await getTask(app, other, theirs!)).name).toBe("theirs");
    const left = await json<{ data: Json[] }>(await app.request("GET", "/api/tasks", { token: user.token }));
    expect(left.data.map((t) => t.id)).toEqual([mine[2]]);
    expect((await json(await bulk([mine[0]]))).deleted_count).toBe(0);
    await expectNoOrphanBlobs(app);
  });

  test("bulk move: moved_count, the folder must exist, other users' ids ignored", async () => {
    const user = await app.register();
    const other = await app.register();
    const mine = await seedTasks(app, user.id, ["a", "b"]);
    const [theirs] = await seedTasks(app, other.id, ["theirs"]);
    await createFolder(app, user, "Work");
    await createFolder(app, other, "Work");
    const move = (ids: unknown, folder: unknown) => app.request("PATCH", "/api/tasks/bulk/move", { token: user.token, json: { ids, folder } });
    await expectValidation(await move(mine, "Nowhere"), "folder");
    await expectValidation(await move([], "Work"), "ids");
    await expectValidation(await move(["a"], "Work"), "ids.0");
    await expectValidation(await move(mine, ""), "folder");
    await expectValidation(await move(mine, "x".repeat(256)), "folder");
    const response = await move([...mine, theirs], "Work");
    expect(response.status).toBe(200);
    const body = await json(response);
    expect(body.moved_count).toBe(2);
    expect(typeof body.message).toBe("string");
    for (const id of mine) expect((await getTask(app, user, id)).folder).toBe("Work");
    expect((await getTask(app, other, theirs!)).folder).toBeNull();
  });
});
