import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, failTask, getTask, json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

/** Every route that names one task, with a body that would be valid for its owner. */
const routes: [method: string, path: (id: string) => string, body?: unknown][] = [
  ["GET", (id) => `/api/tasks/${id}`],
  ["PATCH", (id) => `/api/tasks/${id}`, { name: "Hijacked" }],
  ["DELETE", (id) => `/api/tasks/${id}`],
  ["PATCH", (id) => `/api/tasks/${id}/retry`],
  ["GET", (id) => `/api/tasks/${id}/share-url`],
  ["DELETE", (id) => `/api/tasks/${id}/share-url`],
  ["GET", (id) => `/api/tasks/${id}/history`],
];

describe("every task route is scoped to the caller (spec 5.8)", () => {
  let owner: User;
  let stranger: User;
  let id: number;
  beforeAll(async () => {
    owner = await app.register();
    stranger = await app.register();
    id = await createTask(app, owner, { name: "Private" });
    await failTask(app, id); // so that retry would be allowed for its owner
  });

  for (const [method, path, body] of routes) {
    test(`${method} ${path("{id}")}: another user's task is 404 and nothing changes`, async () => {
      const response = await app.request(method, path(String(id)), { token: stranger.token, json: body });
      expect(response.status).toBe(404);
      expect(typeof (await json(response)).message).toBe("string");
      expect(await getTask(app, owner, id)).toMatchObject({ name: "Private", status: "failed", attempts: 1 });
      expect((await app.request("GET", `/share/tasks/${id}`)).status).toBe(404);
    });

    test(`${method} ${path("{id}")}: no token is 401`, async () => {
      expect((await app.request(method, path(String(id)), { json: body })).status).toBe(401);
    });

    test(`${method} ${path("{id}")}: unknown and non-numeric ids are 404 or 422, never 500`, async () => {
      for (const bad of ["999999999", "abc", "0", "-1", "1.5", "1e3", "%20", "99999999999999999999", "null", "%F0%9F%98%80"]) {
        const response = await app.request(method, path(bad), { token: owner.token, json: body });
        expect([404, 422].includes(response.status) ? "4xx" : `${bad}: ${response.status}`).toBe("4xx");
        expect(typeof (await json(response)).message).toBe("string");
      }
    });
  }

  test("an id that is an integer but no task (0, negative, past 2^53) is 404; one that is no integer is 422 on `id`", async () => {
    for (const missing of ["0", "-1", "99999999999999999999"]) {
      const response = await app.request("GET", `/api/tasks/${missing}`, { token: owner.token });
      expect(response.status).toBe(404);
      expect(await json(response)).toEqual({ message: "Task not found." });
    }
    for (const bad of ["abc", "1.5"]) {
      const response = await app.request("GET", `/api/tasks/${bad}`, { token: owner.token });
      expect(response.status).toBe(422);
      expect(Object.keys((await json<{ errors: object }>(response)).errors)).toEqual(["id"]);
    }
  });

  test("the owner still reaches the task on every route", async () => {
    expect((await app.request("GET", `/api/tasks/${id}/history`, { token: owner.token })).status).toBe(200);
    expect((await app.request("GET", `/api/tasks/${id}/share-url`, { token: owner.token })).status).toBe(200);
    expect((await app.request("PATCH", `/api/tasks/${id}/retry`, { token: owner.token })).status).toBe(200);
    expect((await app.request("PATCH", `/api/tasks/${id}`, { token: owner.token, json: { name: "Still mine" } })).status).toBe(200);
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: owner.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
  });

  test("lists, bulk routes and folders never show or touch another user's tasks", async () => {
    const mine = await createTask(app, owner, { name: "Mine" });
    const theirs = await createTask(app, stranger, { name: "Theirs" });
    const listed = await json<{ data: { id: number }[] }>(await app.request("GET", "/api/tasks?search=theirs", { token: owner.token }));
    expect(listed.data).toEqual([]);
    const deleted = await json(await app.request("DELETE", "/api/tasks/bulk", { token: owner.token, json: { ids: [theirs] } }));
    expect(deleted.deleted_count).toBe(0);
    await expectNoOrphanBlobs(app);
    expect((await getTask(app, stranger, theirs)).name).toBe("Theirs");
    expect((await getTask(app, owner, mine)).name).toBe("Mine");
    const counts = await json<{ total_count: number }>(await app.request("GET", "/api/folders", { token: stranger.token }));
    expect(counts.total_count).toBe(1);
  });
});
