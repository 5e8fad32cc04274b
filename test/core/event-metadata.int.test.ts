import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { userStream } from "../../src/accounts/events.ts";
import type { RecordedEvent } from "../../src/core/event.ts";

test("every event in the log names exactly one actor: a user by number, or a part of the system by name", async () => {
  const user = await app.register();
  await app.request("POST", "/api/tasks", {
    token: user.token,
    json: { disk: "objstore", name: "Actors", path: "a.mp3", segments: [{ start: 0, end: 1, text: "x" }] },
  });
  for (const event of await app.adapters.eventStore.readAll({ limit: 100_000 })) {
    const { userId, system } = event.metadata;
    expect({ type: event.type, actors: [userId, system].filter((a) => a !== null).length }).toEqual({ type: event.type, actors: 1 });
    if (userId !== null) expect(Number.isInteger(userId)).toBe(true);
    if (system !== null) expect(system).toMatch(/^[a-z][a-z-]*$/);
  }
});

// Every event a request appends carries who acted and the request's correlation id (X-Request-Id when the
// client sends a sane one): built once per request by the authentication plugin. Events that workers append
// later keep the correlation id, name their cause, and name the worker as the actor.

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

test("events of an authenticated request carry its X-Request-Id and the acting user", async () => {
  const user = await app.register();
  const headers = { "x-request-id": "req-4242" };
  const created = await app.request("POST", "/api/tasks", {
    token: user.token,
    headers,
    json: { disk: "objstore", name: "Traced", path: "uploads/a.mp3", segments: [{ start: 0, end: 1000, text: "hello" }] },
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: number };
  expect((await app.request("POST", "/api/folders", { token: user.token, headers, json: { name: "Work" } })).status).toBe(201);
  expect(
    (await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, headers: { "x-request-id": "req-4343" }, json: { name: "Renamed", folder: "Work" } }))
      .status,
  ).toBe(200);
  const byRequest = (events: RecordedEvent[], correlationId: string) =>
    events.filter((e) => e.metadata.correlationId === correlationId && e.metadata.causationId === null);
  const taskEvents = await app.adapters.eventStore.readStream(taskStream(id));
  const userEvents = await app.adapters.eventStore.readStream(userStream(user.id));
  expect(byRequest(taskEvents, "req-4242").map((e) => e.type)).toContain("TaskCreated");
  expect(byRequest(userEvents, "req-4242").map((e) => e.type)).toContain("FolderCreated");
  expect(byRequest(taskEvents, "req-4343").map((e) => e.type)).toEqual(expect.arrayContaining(["TaskRenamed", "TaskMoved"]));
  for (const event of [...byRequest(taskEvents, "req-4242"), ...byRequest(taskEvents, "req-4343"), ...byRequest(userEvents, "req-4242")])
    expect(event.metadata).toMatchObject({ userId: user.id, system: null });
  // The supplied transcript was finished by a worker: the same correlation, caused by the creation, acted by the worker.
  let finished = (await app.adapters.eventStore.readStream(taskStream(id))).find((e) => e.type === "TaskFinished");
  for (let i = 0; i < 200 && !finished; i++) {
    await Bun.sleep(10);
    finished = (await app.adapters.eventStore.readStream(taskStream(id))).find((e) => e.type === "TaskFinished");
  }
  const creation = taskEvents.find((e) => e.type === "TaskCreated")!;
  expect(finished!.metadata).toEqual({ correlationId: "req-4242", causationId: creation.id, userId: null, system: "supplied-transcripts" });
  // A request id that is not sane is replaced by a fresh one.
  const odd = await app.request("POST", "/api/folders", { token: user.token, headers: { "x-request-id": "bad id with spaces" }, json: { name: "Home" } });
  expect(odd.status).toBe(201);
  const latest = (await app.adapters.eventStore.readStream(userStream(user.id))).at(-1)!;
  expect(latest.metadata.correlationId).toMatch(/^[0-9a-f-]{36}$/);
});
