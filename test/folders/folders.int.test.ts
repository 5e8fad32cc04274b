import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createFolder, expectValidation, getTask, json, seedTasks, type Json, type User } from "../support/tasks.ts";

type FolderList = { folders: { id: number; name: string; count: number }[]; uncategorized_count: number; total_count: number };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

const post = (user: User, name: unknown) => app.request("POST", "/api/folders", { token: user.token, json: { name } });
const rename = (user: User, from: string, name: unknown) =>
  app.request("PATCH", `/api/folders/${encodeURIComponent(from)}`, { token: user.token, json: { name } });
const remove = (user: User, name: string) => app.request("DELETE", `/api/folders/${encodeURIComponent(name)}`, { token: user.token });
const folders = async (user: User) => json<FolderList>(await app.request("GET", "/api/folders", { token: user.token }));
const move = (user: User, ids: number[], folder: string) => app.request("PATCH", "/api/tasks/bulk/move", { token: user.token, json: { ids, folder } });

describe("folders (spec 2.3, 4.4)", () => {
  test("POST → 201 {id, name}; GET lists folders with counts, uncategorized_count and total_count", async () => {
    const user = await app.register();
    const response = await post(user, "Work");
    expect(response.status).toBe(201);
    const work = await json(response);
    expect(Object.keys(work).sort()).toEqual(["id", "name"]);
    expect(work.name).toBe("Work");
    expect(Number.isInteger(work.id)).toBe(true);
    const home = await createFolder(app, user, "Home");
    const [a, b, c, d] = await seedTasks(app, user.id, ["a", "b", "c", "d"]);
    expect((await move(user, [a!, b!], "Work")).status).toBe(200);
    expect((await move(user, [c!], "Home")).status).toBe(200);
    expect(await folders(user)).toEqual({
      folders: [
        { id: work.id as number, name: "Work", count: 2 },
        { id: home.id, name: "Home", count: 1 },
      ],
      uncategorized_count: 1,
      total_count: 4,
    });
    expect(d).toBeDefined();
    expect(await folders(await app.register())).toEqual({ folders: [], uncategorized_count: 0, total_count: 0 });
  });

  test("names are at most 14 columns, a wide (CJK) character counting as two", async () => {
    const user = await app.register();
    expect((await post(user, "工作工作工作工")).status).toBe(201);
    await expectValidation(await post(user, "工作工作工作工作"), "name");
    expect((await post(user, "a".repeat(14))).status).toBe(201);
    await expectValidation(await post(user, "b".repeat(15)), "name");
    expect((await post(user, "ab工作")).status).toBe(201);
    await expectValidation(await post(user, ""), "name");
    await expectValidation(await post(user, 42), "name");
    await expectValidation(await app.request("POST", "/api/folders", { token: user.token, json: {} }), "name");
    await expectValidation(await rename(user, "ab工作", "工作工作工作工作"), "name");
    await expectValidation(await rename(user, "ab工作", "c".repeat(15)), "name");
    expect((await folders(user)).folders.map((f) => f.name)).toEqual(["工作工作工作工", "a".repeat(14), "ab工作"]);
  });

  test("a name over the limit is refused with the limit in words, however it was measured (issue 25)", async () => {
    const user = await app.register();
    const words = "At most 14 characters, or 7 Chinese characters.";
    for (const name of ["b".repeat(15), "工作工作工作工作", "工作工作工作工a", "x".repeat(20_000)]) {
      const refused = await expectValidation(await post(user, name), "name");
      expect(refused.errors).toEqual({ name: [words] });
      expect(refused.message).toBe(words);
    }
    expect((await expectValidation(await rename(user, "Nope", "c".repeat(15)), "name")).errors).toEqual({ name: [words] });
    expect((await post(user, "工作工作工作工")).status).toBe(201);
    expect((await folders(user)).folders.map((f) => f.name)).toEqual(["工作工作工作工"]);
  });

  test("bulk move to `Uncategorized` takes the tasks out of their folders (issue 25)", async () => {
    const user = await app.register();
    await createFolder(app, user, "Work");
    const [a, b, c] = await seedTasks(app, user.id, ["a", "b", "c"]);
    expect((await move(user, [a!, b!, c!], "Work")).status).toBe(200);
    const response = await move(user, [a!, b!], "Uncategorized");
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ message: "2 tasks moved to Uncategorized.", moved_count: 2 });
    expect(await getTask(app, user, a!)).toMatchObject({ folder: null, tags: [] });
    expect((await getTask(app, user, c!)).folder).toBe("Work");
    expect(await folders(user)).toMatchObject({ folders: [{ name: "Work", count: 1 }], uncategorized_count: 2, total_count: 3 });
    // Only that exact name: it is the list's filter too, and no folder may take it.
    await expectValidation(await move(user, [a!], "uncategorized"), "folder");
    await expectValidation(await post(user, "Uncategorized"), "name");
  });

  test("unique per user, case-insensitively; another user may use the same name", async () => {
    const user = await app.register();
    const other = await app.register();
    await createFolder(app, user, "Work");
    const clash = await expectValidation(await post(user, "Work"), "name");
    expect(JSON.stringify(clash.errors)).toContain("taken");
    await expectValidation(await post(user, "wORK"), "name");
    expect((await post(other, "Work")).status).toBe(201);
    await createFolder(app, user, "Home");
    await expectValidation(await rename(user, "Home", "work"), "name");
    expect((await folders(user)).folders.map((f) => f.name)).toEqual(["Work", "Home"]);
  });

  test("parallel creates of one name: exactly one wins", async () => {
    const user = await app.register();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, i) => post(user, i % 2 ? "Same" : "same")));
    expect(responses.map((r) => r.status).sort()).toEqual([201, 422, 422, 422, 422, 422, 422, 422]);
    expect((await folders(user)).folders.length).toBe(1);
  });

  test("rename: 200 {id, name}; the tasks in it follow (folder and tags)", async () => {
    const user = await app.register();
    const work = await createFolder(app, user, "Work");
    const [a, b] = await seedTasks(app, user.id, ["a", "b"]);
    await move(user, [a!], "Work");
    const response = await rename(user, "work", "Job");
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ id: work.id, name: "Job" });
    expect(await getTask(app, user, a!)).toMatchObject({ folder: "Job", tags: ["Job"] });
    expect(await getTask(app, user, b!)).toMatchObject({ folder: null, tags: [] });
    const listed = await json<{ data: Json[] }>(await app.request("GET", "/api/tasks?folder=Job", { token: user.token }));
    expect(listed.data.map((t) => [t.id, t.folder])).toEqual([[a, "Job"]]);
    await expectValidation(await app.request("GET", "/api/tasks?folder=Work", { token: user.token }), "folder");
    // The old name is free again; changing only the case is a rename too.
    expect((await post(user, "Work")).status).toBe(201);
    expect(await json(await rename(user, "Job", "JOB"))).toEqual({ id: work.id, name: "JOB" });
    expect((await getTask(app, user, a!)).folder).toBe("JOB");
  });

  test("delete: 200 with a message; its tasks become uncategorized", async () => {
    const user = await app.register();
    await createFolder(app, user, "Work");
    const [a, b] = await seedTasks(app, user.id, ["a", "b"]);
    await move(user, [a!, b!], "Work");
    const response = await remove(user, "Work");
    expect(response.status).toBe(200);
    expect(typeof (await json(response)).message).toBe("string");
    expect(await getTask(app, user, a!)).toMatchObject({ folder: null, tags: [] });
    expect(await folders(user)).toEqual({ folders: [], uncategorized_count: 2, total_count: 2 });
    const uncategorized = await json<{ total: number }>(await app.request("GET", "/api/tasks?folder=Uncategorized", { token: user.token }));
    expect(uncategorized.total).toBe(2);
    // A new folder of the same name starts empty.
    await createFolder(app, user, "Work");
    expect((await folders(user)).folders).toEqual([expect.objectContaining({ name: "Work", count: 0 })]);
  });

  test("unknown folders on PATCH and DELETE are 404, including another user's", async () => {
    const user = await app.register();
    const other = await app.register();
    await createFolder(app, other, "Theirs");
    expect((await rename(user, "Nope", "New")).status).toBe(404);
    expect((await remove(user, "Nope")).status).toBe(404);
    expect((await rename(user, "Theirs", "Mine")).status).toBe(404);
    expect((await remove(user, "Theirs")).status).toBe(404);
    expect((await folders(other)).folders.map((f) => f.name)).toEqual(["Theirs"]);
    expect(typeof (await json(await remove(user, "Nope"))).message).toBe("string");
  });

  test("URL-encoded CJK and spaced names in the path", async () => {
    const user = await app.register();
    const created = await createFolder(app, user, "会议 记录");
    const [a] = await seedTasks(app, user.id, ["a"]);
    await move(user, [a!], "会议 记录");
    const response = await app.request("PATCH", `/api/folders/${encodeURIComponent("会议 记录")}`, { token: user.token, json: { name: "工作" } });
    expect(response.status).toBe(200);
    expect(await json(response)).toEqual({ id: created.id, name: "工作" });
    expect((await getTask(app, user, a!)).folder).toBe("工作");
    const listed = await json<{ total: number }>(await app.request("GET", `/api/tasks?folder=${encodeURIComponent("工作")}`, { token: user.token }));
    expect(listed.total).toBe(1);
    expect((await app.request("DELETE", `/api/folders/${encodeURIComponent("工作")}`, { token: user.token })).status).toBe(200);
    expect((await getTask(app, user, a!)).folder).toBeNull();
  });

  test("reserved and malformed names are 422", async () => {
    const user = await app.register();
    await expectValidation(await post(user, "Uncategorized"), "name");
    await expectValidation(await post(user, " padded "), "name");
    await expectValidation(await post(user, "tab\there"), "name");
  });
});
