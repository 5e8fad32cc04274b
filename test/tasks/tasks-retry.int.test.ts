import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { taskSlotWorker } from "../../src/tasks/task-slots-worker.ts";
import { createTask, expectValidation, failTask, getTask, holdsSlot, json, waitForSlotFree, type Json, type User } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { deliverTo } from "../../src/core/worker.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" }); // the task API alone: nothing transcribes these made-up paths
});
afterAll(() => app.close());

const retry = (user: User, id: number) => app.request("PATCH", `/api/tasks/${id}/retry`, { token: user.token });
const queue = async (user: User) => (await json<{ queue: Json }>(await app.request("GET", "/api/user", { token: user.token }))).queue;

describe("PATCH /api/tasks/{id}/retry (spec 3, 4.2)", () => {
  test("a failed objstore task goes back to pending; attempts 1 → 2 → 3 → 4, and the 4th retry is 422", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    expect((await getTask(app, user, id)).attempts).toBe(1);
    for (const attempts of [2, 3, 4]) {
      await failTask(app, id);
      await waitForSlotFree(app, user.id, id);
      const response = await retry(user, id);
      expect(response.status).toBe(200);
      const body = await json(response);
      expect(body).toEqual({ id, status: "pending", attempts });
      expect(await getTask(app, user, id)).toMatchObject({ status: "pending", attempts, failure_reason: null });
      expect(await holdsSlot(app, user.id, id)).toBe(true);
    }
    await failTask(app, id);
    const fourth = await retry(user, id);
    await expectValidation(fourth, "attempts");
    expect(await getTask(app, user, id)).toMatchObject({ status: "failed", attempts: 4 });
    // The refused retry is refused before it takes a slot.
    await waitForSlotFree(app, user.id, id);
  });

  test("parallel retries of one failed task: one wins, and the losers leave the winner's slot alone", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    await failTask(app, id);
    await waitForSlotFree(app, user.id, id);
    const responses = await Promise.all([1, 2, 3, 4, 5].map(() => retry(user, id)));
    expect(responses.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422]);
    expect(await getTask(app, user, id)).toMatchObject({ status: "pending", attempts: 2 });
    expect(await holdsSlot(app, user.id, id)).toBe(true);
  });

  test("remote and videolink tasks go back to waiting", async () => {
    const user = await app.register();
    await app.setPlan(user.id, "pro");
    for (const disk of ["remote", "videolink"]) {
      const id = await createTask(app, user, { disk, path: `https://media.example.com/${disk}` });
      await failTask(app, id);
      const response = await retry(user, id);
      expect(response.status).toBe(200);
      expect(await json(response)).toEqual({ id, status: "waiting", attempts: 2 });
      // Waiting, until the fetch worker gives up on the made-up host and fails it again.
      expect(["waiting", "failed"]).toContain((await getTask(app, user, id)).status as string);
    }
  });

  test("only a failed task can be retried (422 otherwise)", async () => {
    const user = await app.register();
    const id = await createTask(app, user);
    await expectValidation(await retry(user, id), "status");
    expect(await getTask(app, user, id)).toMatchObject({ status: "pending", attempts: 1 });
  });

  test("a failed task shows failure_reason and counts in GET /api/user queue.failed_count", async () => {
    const user = await app.register();
    const a = await createTask(app, user);
    const b = await createTask(app, user);
    expect(await queue(user)).toEqual({ pending_count: 2, running_count: 0, failed_count: 0 });
    await failTask(app, a, "The audio could not be decoded.");
    expect(await getTask(app, user, a)).toMatchObject({ status: "failed", failure_reason: "The audio could not be decoded." });
    expect(await queue(user)).toEqual({ pending_count: 1, running_count: 0, failed_count: 1 });
    const failed = await json<{ data: Json[] }>(await app.request("GET", "/api/tasks?status=failed", { token: user.token }));
    expect(failed.data.map((t) => t.id)).toEqual([a]);
    expect((await getTask(app, user, b)).failure_reason).toBeNull();
    await waitForSlotFree(app, user.id, a);
    await retry(user, a);
    expect(await queue(user)).toEqual({ pending_count: 2, running_count: 0, failed_count: 0 });
  });

  test("a retry needs a free slot: 429 with 3 tasks in flight, 200 once one is deleted", async () => {
    const user = await app.register();
    const failed = await createTask(app, user);
    await failTask(app, failed);
    await waitForSlotFree(app, user.id, failed);
    const busy = [await createTask(app, user), await createTask(app, user), await createTask(app, user)];
    const refused = await retry(user, failed);
    expect(refused.status).toBe(429);
    expect(await getTask(app, user, failed)).toMatchObject({ status: "failed", attempts: 1 });
    expect((await app.request("DELETE", `/api/tasks/${busy[0]}`, { token: user.token })).status).toBe(200);
    await expectNoOrphanBlobs(app);
    const response = await retry(user, failed);
    expect(response.status).toBe(200);
    expect((await json(response)).attempts).toBe(2);
    // Now the retried task holds the third slot.
    expect((await app.request("POST", "/api/tasks", { token: user.token, json: { disk: "objstore", name: "x", path: "p" } })).status).toBe(429);
  });
});

describe("slot release after a retry (late or repeated delivery of TaskFailed)", () => {
  // No workers in this app, so the test decides when the slot worker sees TaskFailed.
  let quiet: TestApp;
  beforeAll(async () => {
    quiet = await startTestApp({ ...scriptPace, ROLES: "api,projections" });
  });
  afterAll(() => quiet.close());

  // A late (or repeated) TaskFailed about attempt 1 must not free the slot attempt 2 holds: slots are
  // per attempt, so the retried task stays inside the limit.
  test("a retried task keeps its slot when TaskFailed reaches the slot worker after the retry", async () => {
    const user = await quiet.register();
    const id = await createTask(quiet, user);
    await failTask(quiet, id);
    expect((await quiet.request("PATCH", `/api/tasks/${id}/retry`, { token: user.token })).status).toBe(200);
    const failedEvent = (await quiet.adapters.eventStore.readStream(`task-${id}`)).find((e) => e.type === "TaskFailed")!;
    await deliverTo(taskSlotWorker(quiet.adapters.eventStore), failedEvent, undefined as never);
    expect(await holdsSlot(quiet, user.id, id)).toBe(true);
    await createTask(quiet, user);
    await createTask(quiet, user);
    expect((await quiet.request("POST", "/api/tasks", { token: user.token, json: { disk: "objstore", name: "x", path: "p" } })).status).toBe(429);
  });
});
