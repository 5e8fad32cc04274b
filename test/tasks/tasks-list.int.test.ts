import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createFolder, expectValidation, json, seedTasks, taskCommand, failTask, type Json, type User } from "../support/tasks.ts";

type Page = { data: Json[]; current_page: number; last_page: number; per_page: number; total: number };

let app: TestApp;
beforeAll(async () => {
  // The task API alone, no workers: the states are set by hand, and nothing fetches or transcribes these made-up paths.
  app = await startTestApp({ ...scriptPace, ROLES: "api,projections" });
});
afterAll(() => app.close());

const list = async (user: User, query = "") => {
  const response = await app.request("GET", `/api/tasks${query}`, { token: user.token });
  expect(response.status).toBe(200);
  return json<Page>(response);
};
const names = (page: Page) => page.data.map((t) => t.name).sort();

describe("GET /api/tasks filters (spec 4.2)", () => {
  let user: User;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    user = await app.register();
    const [pending, scribing, finished, failed] = await seedTasks(app, user.id, ["Pending one", "Scribing one", "Finished one", "Failed one"]);
    // Waiting: a remote task that failed and was retried.
    const [waiting] = await seedTasks(app, user.id, ["Waiting one"], "remote");
    Object.assign(ids, { pending, waiting, scribing, finished, failed });
    await taskCommand(app, scribing!, { type: "StartTranscription" });
    await taskCommand(app, finished!, { type: "FinishTask", transcript: null, duration: 60, cost: 60, summary: "s", mindmap: "m" });
    await failTask(app, failed!);
    await failTask(app, waiting!);
    await taskCommand(app, waiting!, { type: "RetryTask" });
  });

  test("status: all (default), each status, unknown → 422", async () => {
    expect((await list(user)).total).toBe(5);
    expect((await list(user, "?status=all")).total).toBe(5);
    for (const status of ["pending", "waiting", "scribing", "finished", "failed"] as const) {
      const page = await list(user, `?status=${status}`);
      expect(page.data.map((t) => t.id)).toEqual([ids[status]!]);
      expect(page.data[0]!.status).toBe(status);
      expect(page.total).toBe(1);
    }
    expect((await list(user, "?status=waiting")).data[0]!.attempts).toBe(2);
    await expectValidation(await app.request("GET", "/api/tasks?status=done", { token: user.token }), "status");
  });

  test("list items have exactly the fields of spec 2.2", async () => {
    const page = await list(user, "?status=finished");
    expect(Object.keys(page.data[0]!).sort()).toEqual([
      "attempts",
      "cost",
      "created_at",
      "disk",
      "duration",
      "file",
      "folder",
      "id",
      "name",
      "quality",
      "size",
      "status",
    ]);
    expect(page.data[0]).toMatchObject({
      id: ids.finished,
      name: "Finished one",
      file: "Finished one.mp3",
      disk: "objstore",
      size: 1000,
      duration: 60,
      cost: 60,
      status: "finished",
      attempts: 1,
      quality: null,
      folder: null,
    });
  });

  test("search: part of the name, case-insensitive, special characters literal", async () => {
    const searcher = await app.register();
    await seedTasks(app, searcher.id, ["Weekly Meeting", "100% done", "under_score", "paren (1)", "dot.name", "plain", "back\\slash", "star*", "Ünïcode Tâsk"]);
    const search = async (text: string) => names(await list(searcher, `?search=${encodeURIComponent(text)}`));
    expect(await search("meeting")).toEqual(["Weekly Meeting"]);
    expect(await search("WEEKLY meet")).toEqual(["Weekly Meeting"]);
    expect(await search("%")).toEqual(["100% done"]);
    expect(await search("_")).toEqual(["under_score"]);
    expect(await search("(")).toEqual(["paren (1)"]);
    expect(await search("(1)")).toEqual(["paren (1)"]);
    expect(await search(".")).toEqual(["dot.name"]);
    expect(await search("*")).toEqual(["star*"]);
    expect(await search("\\")).toEqual(["back\\slash"]);
    expect(await search("ünï")).toEqual(["Ünïcode Tâsk"]);
    expect(await search("nothing like it")).toEqual([]);
    expect((await list(searcher, "?search=")).total).toBe(9);
  });

  test("search: a NUL or other control character is 422 keyed search (MongoDB refuses a NUL in a $regex)", async () => {
    const searcher = await app.register();
    for (const bad of ["\u0000", "a\u0000b", "tab\there", "\u001b[1m", "\u007f"]) {
      const response = await app.request("GET", `/api/tasks?search=${encodeURIComponent(bad)}`, { token: searcher.token });
      expect(response.status).toBe(422);
      expect(((await response.json()) as { errors: Record<string, string[]> }).errors.search).toEqual(["The search field format is invalid."]);
    }
  });

  test("folder: a folder's name, or Uncategorized; an unknown folder → 422", async () => {
    const owner = await app.register();
    const [a, b, c] = await seedTasks(app, owner.id, ["In work A", "In work B", "Loose"]);
    await createFolder(app, owner, "Work");
    await createFolder(app, owner, "Empty");
    const moved = await app.request("PATCH", "/api/tasks/bulk/move", { token: owner.token, json: { ids: [a, b], folder: "Work" } });
    expect(moved.status).toBe(200);
    const inWork = await list(owner, "?folder=Work");
    expect(inWork.data.map((t) => t.id).sort()).toEqual([a!, b!].sort());
    expect(inWork.data.every((t) => t.folder === "Work")).toBe(true);
    expect((await list(owner, "?folder=Uncategorized")).data.map((t) => t.id)).toEqual([c]);
    expect((await list(owner, "?folder=Empty")).total).toBe(0);
    expect((await list(owner, "?folder=Work&search=b")).data.map((t) => t.id)).toEqual([b]);
    await expectValidation(await app.request("GET", "/api/tasks?folder=Nowhere", { token: owner.token }), "folder");
    // Another user's folder is unknown here.
    await expectValidation(await app.request("GET", "/api/tasks?folder=Work", { token: user.token }), "folder");
  });
});

describe("GET /api/tasks pagination", () => {
  let user: User;
  let seeded: number[];
  beforeAll(async () => {
    user = await app.register();
    seeded = await seedTasks(
      app,
      user.id,
      Array.from({ length: 30 }, (_, i) => `Task ${String(i).padStart(2, "0")}`),
    );
  });

  test("25 a page by default, newest first, with current_page, last_page, per_page and total", async () => {
    const first = await list(user);
    expect(first).toMatchObject({ current_page: 1, last_page: 2, per_page: 25, total: 30 });
    expect(first.data.length).toBe(25);
    expect(first.data.map((t) => t.id)).toEqual([...seeded].reverse().slice(0, 25));
    const second = await list(user, "?page=2");
    expect(second).toMatchObject({ current_page: 2, last_page: 2, per_page: 25, total: 30 });
    expect(second.data.map((t) => t.id)).toEqual([...seeded].reverse().slice(25));
  });

  test("per_page up to 100; pages past the end are empty", async () => {
    expect(await list(user, "?per_page=10&page=3")).toMatchObject({ current_page: 3, last_page: 3, per_page: 10, total: 30 });
    expect((await list(user, "?per_page=10&page=3")).data.map((t) => t.id)).toEqual([...seeded].reverse().slice(20, 30));
    expect((await list(user, "?per_page=100")).data.length).toBe(30);
    expect((await list(user, "?per_page=7&page=5")).data.length).toBe(2);
    const past = await list(user, "?page=9");
    expect(past.data).toEqual([]);
    expect(past).toMatchObject({ current_page: 9, last_page: 2, total: 30 });
    const empty = await list(await app.register());
    expect(empty).toMatchObject({ data: [], current_page: 1, last_page: 1, per_page: 25, total: 0 });
  });

  test("bad paging → 422", async () => {
    for (const [query, field] of [
      ["per_page=101", "per_page"],
      ["per_page=0", "per_page"],
      ["per_page=-1", "per_page"],
      ["per_page=ten", "per_page"],
      ["page=0", "page"],
      ["page=1.5", "page"],
      ["page=1000001", "page"],
    ] as const) {
      await expectValidation(await app.request("GET", `/api/tasks?${query}`, { token: user.token }), field);
    }
    const both = await expectValidation(await app.request("GET", "/api/tasks?page=0&per_page=101", { token: user.token }), "page");
    expect(Object.keys(both.errors as object).sort()).toEqual(["page", "per_page"]);
  });
});

describe("repeated reads (answers kept under their read model's version)", () => {
  test("a repeated list or detail request gets the same JSON, its content type, and the rate limit's header", async () => {
    const user = await app.register();
    const [id] = await seedTasks(app, user.id, ["Kept one", "Kept two"]);
    for (const path of ["/api/tasks", "/api/tasks?search=kept", `/api/tasks/${id}`]) {
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push(await app.request("GET", path, { token: user.token }));
      // The same JSON value (a fresh answer's keys come in the schema's order, a kept one's in the view's).
      const bodies = await Promise.all(answers.map((r) => r.json()));
      expect(bodies[1]).toEqual(bodies[0]);
      expect(bodies[2]).toEqual(bodies[0]);
      expect(bodies[0]).toMatchObject(path.includes("?") || path.endsWith("tasks") ? { total: 2 } : { id, name: "Kept one" });
      for (const r of answers) expect(r.headers.get("content-type")).toBe("application/json;charset=utf-8");
      const remaining = answers.map((r) => Number(r.headers.get("x-ratelimit-remaining")));
      expect(remaining.every(Number.isInteger)).toBe(true);
      expect(remaining[1]).toBe(remaining[0]! - 1);
      expect(remaining[2]).toBe(remaining[1]! - 1);
    }
  });

  test("a change to one of the user's tasks shows at once in the next list and detail", async () => {
    const user = await app.register();
    const [id] = await seedTasks(app, user.id, ["Before"]);
    expect((await list(user)).data[0]).toMatchObject({ id, name: "Before" });
    await app.request("GET", `/api/tasks/${id}`, { token: user.token });
    expect((await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { name: "After" } })).status).toBe(200);
    expect((await list(user)).data[0]).toMatchObject({ id, name: "After" });
    expect(await json<Json>(await app.request("GET", `/api/tasks/${id}`, { token: user.token }))).toMatchObject({ id, name: "After" });
  });
});
