/**
 * What an account's erasure must leave nothing of, through HTTP on the whole service in process (embedded adapters):
 * its tasks' uploaded media gone by the time DELETE /api/user answers (before the account's keys, which the media's
 * path is encrypted under), a task the tasks read model has not caught up with, the snapshots of its streams, the
 * answers kept for its Idempotency-Key retries; an erasure that stopped after AccountErased finished by the workers;
 * and the password check limited as a login is.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { manyRegistrations, manyRequestsPerToken } from "../support/limits.ts";
import { json, type User } from "../support/tasks.ts";
import { workersCaughtUp } from "../support/eventually.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { AccountCommands } from "../../src/accounts/commands.ts";
import { decideAccountErasure } from "../../src/erasure/account-erasure-decider.ts";
import { bySystem } from "../../src/core/event.ts";
import { AccountErasure } from "../../src/erasure/account-erasure.ts";
import { tasksService } from "../../src/tasks/index.ts";

let app: TestApp;
// The spec's 5 logins a minute an email: what the password check of DELETE /api/user counts against.
beforeAll(async () => void (app = await startTestApp({ ...manyRequestsPerToken, ...manyRegistrations })));
afterAll(() => app.close());

type Account = User & { email: string; password: string };
const erase = (account: Account, password = account.password) => app.request("DELETE", "/api/user", { token: account.token, json: { password } });
const hex = () => crypto.randomUUID().replaceAll("-", "");

/** `count` tasks, each on a file uploaded under the owner's prefix (`uploads/<userId>/<128 bits>/`), as an upload leaves it. */
async function tasksWithMedia(user: User, count: number): Promise<{ tasks: number[]; media: string[] }> {
  const tasks: number[] = [];
  const media: string[] = [];
  while (tasks.length < count) {
    const key = `uploads/${user.id}/${hex()}/secret-interview-${tasks.length}.wav`;
    await app.adapters.blobs.put(key, new Uint8Array([82, 73, 70, 70]), { contentType: "audio/wav" });
    const segments = [{ start: 0, end: 1000, text: "private words" }];
    const body = { disk: "objstore", name: `Secret interview ${tasks.length}`, path: key, segments };
    const response = await app.request("POST", "/api/tasks", { token: user.token, json: body });
    if (response.status === 429) {
      await app.adapters.blobs.delete(key);
      await Bun.sleep(20); // 3 tasks in progress at most: the supplied transcripts finish them within moments
      continue;
    }
    expect(response.status).toBe(201);
    tasks.push((await json<{ id: number }>(response)).id);
    media.push(key);
  }
  return { tasks, media };
}

const present = async (keys: readonly string[]) => (await Promise.all(keys.map((key) => app.adapters.blobs.head(key)))).filter(Boolean).length;
const lastEventOf = async (taskId: number) => (await app.adapters.eventStore.readStream(taskStream(taskId))).at(-1)?.type;

describe("DELETE /api/user, answered", () => {
  let account: Account;
  let other: Account;
  let made: { tasks: number[]; media: string[] };
  const snapshotsOf = (userId: number, taskId: number) => [`account@2:user-${userId}`, `admission@4:user-${userId}`, `task@1:task-${taskId}`];

  beforeAll(async () => {
    account = await app.register({ name: "Rhea Remains" });
    other = await app.register({ name: "Otto Other" });
    made = await tasksWithMedia(account, 12);
    await workersCaughtUp(app);
    const db = app.adapters.documents;
    // A task the tasks read model has not caught up with yet: its admission on the account's stream names it.
    await db.collection("tasks").deleteOne({ _id: String(made.tasks.at(-1)) });
    // Snapshots (src/core/state-cache.ts) of its streams, which hold its email and names in the clear, and one of another account's.
    for (const _id of [...snapshotsOf(account.id, made.tasks[0]!), `account@2:user-${other.id}`])
      await db.collection("snapshots").insertOne({ _id, revision: 0, eventId: "e", state: { email: account.email } });
    for (const user of [account, other]) {
      const headers = { "idempotency-key": `folder-${user.id}` };
      expect((await app.request("POST", "/api/folders", { token: user.token, headers, json: { name: "Clients" } })).status).toBe(201);
    }
    expect(await db.collection("idempotency_keys").countDocuments({ userId: account.id })).toBeGreaterThan(0);
    expect(await present(made.media)).toBe(made.media.length);
    expect((await erase(account)).status).toBe(204);
  });

  test("every task's uploaded media is gone when it answers, not left for workers that could no longer read its path", async () => {
    expect(await present(made.media)).toBe(0);
    await workersCaughtUp(app);
    expect(await present(made.media)).toBe(0);
  });

  test("a task missing from the tasks read model is deleted too", async () => {
    for (const taskId of made.tasks) expect({ taskId, last: await lastEventOf(taskId) }).toEqual({ taskId, last: "TaskDeleted" });
  });

  test("its snapshots and kept Idempotency-Key answers are deleted; another account's stay", async () => {
    const db = app.adapters.documents;
    for (const _id of snapshotsOf(account.id, made.tasks[0]!))
      expect({ _id, found: await db.collection("snapshots").findOne({ _id }) }).toEqual({ _id, found: null });
    expect(await db.collection("snapshots").findOne({ _id: `account@2:user-${other.id}` })).not.toBeNull();
    expect(await db.collection("idempotency_keys").countDocuments({ userId: account.id })).toBe(0);
    expect(await db.collection("idempotency_keys").countDocuments({ userId: other.id })).toBeGreaterThan(0);
  });

  test("its keys are destroyed, and none is ever made for it again", async () => {
    const keys = app.adapters.dataKeys;
    expect(await keys.find(`account-${account.id}`)).toBe("erased");
    for (const taskId of made.tasks) expect(await keys.find(`task-${taskId}`)).toBe("erased");
    expect(await keys.keyFor("task-987654321", account.id)).toBeNull();
    expect(await keys.keyFor(`account-${other.id}`, other.id)).not.toBeNull();
  });
});

describe("an erasure that stopped right after AccountErased", () => {
  test("is finished by the workers: media gone, keys destroyed, email free", async () => {
    const account = await app.register({ name: "Halted Halfway" });
    const { media } = await tasksWithMedia(account, 3);
    await workersCaughtUp(app);
    // What a request that failed after its first step left: the account erased on its stream, and nothing else done.
    const command = { type: "EraseAccount", tokens: [], sessions: [], by: "user", now: new Date().toISOString() } as const;
    const metadata = bySystem("test", crypto.randomUUID());
    await new AccountCommands(app.adapters.eventStore).decide(account.id, (state) => decideAccountErasure(command, state), { metadata });
    await workersCaughtUp(app);
    expect(await present(media)).toBe(0);
    expect(await app.adapters.dataKeys.find(`account-${account.id}`)).toBe("erased");
    expect((await app.request("POST", "/api/login", { json: { email: account.email, password: account.password } })).status).toBe(401);
    expect((await app.register({ email: account.email })).id).not.toBe(account.id);
  });
});

describe("what an erasure reports", () => {
  /** The erasure as `bun run admin erase` makes it, on the app's stores. */
  async function operatorErasure(): Promise<AccountErasure> {
    const { eventStore: store, documents: db, blobs, transcripts, dataKeys } = app.adapters;
    const tasks = await tasksService(store, db, async () => undefined, transcripts);
    return new AccountErasure({ store, db, blobs, transcripts, waitFor: async () => undefined, tasks, dataKeys });
  }

  test("given the AccountErased worker (another process) got to the tasks first, then the tasks it deleted in the erasure's correlation are counted, and none its owner deleted before", async () => {
    const account = await app.register({ name: "Raced Report" });
    const { tasks } = await tasksWithMedia(account, 3);
    expect((await app.request("DELETE", `/api/tasks/${tasks[0]}`, { token: account.token })).status).toBe(200);
    await workersCaughtUp(app);
    const correlationId = crypto.randomUUID();
    const erasure = await operatorErasure();
    // What the worker beside `admin erase` does when it reacts to AccountErased before the command lists the tasks.
    await erasure.finish(account.id, bySystem("account-erasure", correlationId, "the AccountErased event"));
    const report = await erasure.erase(account.id, "operator", bySystem("operator", correlationId));
    expect(report.tasks).toBe(2);
    expect(report.tokens).toBe(1);
    // Run again (a new correlation): it deletes nothing, and says so.
    expect((await erasure.erase(account.id, "operator", bySystem("operator", crypto.randomUUID()))).tasks).toBe(0);
  });
});

describe("the password check", () => {
  test("counts as a login attempt on the account's email: 429 with Retry-After once spent, the password then unchecked", async () => {
    const account = await app.register({ name: "Guess Target" });
    const statuses: number[] = [];
    let refused: Response | null = null;
    // 5 a minute: a 6th within one minute is refused; 11 tries cover a minute that turns between two of them.
    for (let attempt = 0; attempt < 11 && refused === null; attempt++) {
      const response = await erase(account, `guess ${attempt}`);
      statuses.push(response.status);
      if (response.status === 429) refused = response;
    }
    expect(statuses.slice(0, -1).every((status) => status === 403)).toBe(true);
    expect(refused?.status).toBe(429);
    expect(Number(refused?.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await json<{ message: string }>(refused!)).message).toContain("Too many login attempts");
    expect((await erase(account)).status).toBe(429);
    expect((await app.request("POST", "/api/login", { json: { email: account.email, password: account.password } })).status).toBe(429);
    expect((await app.request("GET", "/api/user", { token: account.token })).status).toBe(200);
  });
});
