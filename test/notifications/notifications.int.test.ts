import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { handle } from "../../src/core/command-handler.ts";
import { userDecider, type UserCommand } from "../../src/accounts/decider.ts";
import { userStream } from "../../src/accounts/events.ts";
import { notificationsProjection, type NotificationDocument } from "../../src/notifications/notifications-projection.ts";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { chargeSeconds } from "../support/charges.ts";
import { createTask, waitForStatus } from "../support/tasks.ts";
import { until } from "../support/eventually.ts";
import { applyDeclared } from "../../src/core/projection.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

type Notification = { id: string; title: string; message: string; task_id: number | null; read_at: string | null; created_at: string };
const now = () => new Date().toISOString();

/** Runs a command on the account as the system would, and waits until every read model shows it. */
async function run(userId: number, command: UserCommand): Promise<void> {
  const result = await handle(app.adapters.eventStore, userStream(userId), userDecider, (state) => userDecider.decide(command, state), {
    metadata: { correlationId: "test", causationId: null, userId: null, system: "test" },
  });
  if (result.position !== null) await app.service.waitForProjections(result.position);
}

/** Charges the account as a finished task would, and waits until every read model shows it. */
async function charge(userId: number, taskId: number, seconds: number): Promise<void> {
  const position = await chargeSeconds(app.adapters.eventStore, userId, seconds, taskId);
  if (position !== null) await app.service.waitForProjections(position);
}

async function list(token: string): Promise<Notification[]> {
  const response = await app.request("GET", "/api/notifications", { token });
  expect(response.status).toBe(200);
  return (await response.json()) as Notification[];
}

const changePlan = (plan: "pro" | "max" | "free", interval: "month" | "year" | "none"): UserCommand => ({
  type: "ChangePlan",
  plan,
  interval,
  source: "operator",
  reference: null,
  now: now(),
});

describe("notifications", () => {
  test("both routes need a token", async () => {
    expect((await app.request("GET", "/api/notifications")).status).toBe(401);
    expect((await app.request("POST", "/api/notifications/mark-all-as-read")).status).toBe(401);
  });

  test("a new account has none", async () => {
    const { token } = await app.register();
    expect(await list(token)).toEqual([]);
  });

  test("a plan change notifies with spec 2.5's fields (and task_id, null: it is about no task)", async () => {
    const { token, id } = await app.register();
    await run(id, changePlan("pro", "year"));
    const [notification, ...rest] = await list(token);
    expect(rest).toEqual([]);
    expect(notification).toEqual({
      id: expect.any(String),
      title: "Plan changed",
      message: "Your plan is now Pro, billed yearly.",
      task_id: null,
      read_at: null,
      created_at: expect.any(String),
    });
    expect(Date.parse(notification!.created_at)).toBeGreaterThan(Date.now() - 60_000);
  });

  test("the balance warns once, on the charge that crosses below 10 %", async () => {
    const { token, id } = await app.register();
    await charge(id, 1, 1_000);
    expect(await list(token)).toEqual([]);
    await charge(id, 2, 700); // 100 of 1800 left
    await charge(id, 3, 50);
    const found = await list(token);
    expect(found.map((n) => n.title)).toEqual(["Balance low"]);
    expect(found[0]!.message).toStartWith("You have 1 min of transcription time left.");
  });

  test("mark-all-as-read answers success and a GET right after shows them read; later ones stay unread", async () => {
    const { token, id } = await app.register();
    await run(id, changePlan("pro", "month"));
    await run(id, changePlan("max", "month"));
    const response = await app.request("POST", "/api/notifications/mark-all-as-read", { token });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: true });
    const read = await list(token);
    expect(read).toHaveLength(2);
    for (const n of read) expect(Date.parse(n.read_at!)).toBeGreaterThanOrEqual(Date.parse(n.created_at));

    await run(id, changePlan("pro", "year"));
    const [newest, ...older] = await list(token);
    expect(newest!.read_at).toBeNull();
    expect(older.map((n) => n.read_at)).toEqual(read.map((n) => n.read_at));
    // Marking again with nothing new to read still succeeds.
    expect((await app.request("POST", "/api/notifications/mark-all-as-read", { token })).status).toBe(200);
    expect((await list(token)).every((n) => n.read_at !== null)).toBe(true);
  });

  test("only the 10 most recent, newest first, and only the caller's own", async () => {
    const { token, id } = await app.register();
    const other = await app.register();
    await run(other.id, changePlan("max", "year"));
    for (let i = 0; i < 12; i++) await run(id, i % 2 === 0 ? changePlan("pro", "month") : changePlan("max", "month"));
    const found = await list(token);
    expect(found).toHaveLength(10);
    expect(found[0]!.message).toBe("Your plan is now Max, billed monthly.");
    expect(found[1]!.message).toBe("Your plan is now Pro, billed monthly.");
    expect(new Set(found.map((n) => n.id)).size).toBe(10);
    expect((await list(other.token)).map((n) => n.message)).toEqual(["Your plan is now Max, billed yearly."]);
  });

  test("task events on task streams notify the owner named in their data", async () => {
    const { token, id } = await app.register();
    const metadata = { correlationId: "test", causationId: null, userId: null, system: "test" };
    const { position } = await app.adapters.eventStore.append(
      `task-${900_000 + id}`,
      [
        { id: crypto.randomUUID(), type: "TaskFinished", data: { userId: id, taskId: 900_000 + id, name: "Interview" }, metadata },
        { id: crypto.randomUUID(), type: "ExportReady", data: { userId: id, taskId: 900_000 + id, format: "srt" }, metadata },
        { id: crypto.randomUUID(), type: "TaskFailed", data: { taskId: 1, name: "No owner" }, metadata },
      ],
      { expectedRevision: "any" },
    );
    await app.service.waitForProjections(position);
    expect((await list(token)).map((n) => n.title)).toEqual(["Export ready", "Task finished"]);
  });

  test("a task's notifications name it (task_id), the account's own name none; a deleted task's are no longer listed (issue 25)", async () => {
    const user = await app.register();
    await run(user.id, changePlan("pro", "month"));
    const kept = await createTask(app, user, { name: "Kept", segments: [{ start: 0, end: 1000, text: "Hello." }] });
    const gone = await createTask(app, user, { name: "Gone", segments: [{ start: 0, end: 1000, text: "Bye." }] });
    await waitForStatus(app, user, kept, "finished");
    await waitForStatus(app, user, gone, "finished");
    const finished = await until("both notifications", async () => {
      const found = await list(user.token);
      return found.filter((n) => n.title === "Task finished").length === 2 && found;
    });
    expect(finished.map((n) => [n.title, n.task_id])).toEqual([
      ["Task finished", gone],
      ["Task finished", kept],
      ["Plan changed", null],
    ]);

    expect((await app.request("DELETE", `/api/tasks/${gone}`, { token: user.token })).status).toBe(200);
    const after = await until("the deleted task's notification gone", async () => {
      const found = await list(user.token);
      return found.every((n) => n.task_id !== gone) && found;
    });
    expect(after.map((n) => [n.title, n.task_id])).toEqual([
      ["Task finished", kept],
      ["Plan changed", null],
    ]);

    // Delivered again, in order (a restart before the checkpoint was saved): the TaskFinished finds its notification
    // there, marked, and does not bring it back; a rebuild comes to the same.
    const events = [...(await app.adapters.eventStore.readStream(`task-${gone}`)), ...(await app.adapters.eventStore.readStream(`task-${kept}`))];
    for (const event of events) await applyDeclared(notificationsProjection, event, app.adapters.documents);
    expect(await list(user.token)).toEqual(after);
    await app.service.projections!.rebuild(["notifications"]);
    expect(await list(user.token)).toEqual(after);
    expect(await app.adapters.documents.collection<NotificationDocument>("notifications").countDocuments({ userId: user.id, taskDeleted: true })).toBe(1);
  });

  test("redelivery and rebuilds change nothing, read marks included", async () => {
    const { token, id } = await app.register();
    await run(id, changePlan("pro", "month"));
    await app.request("POST", "/api/notifications/mark-all-as-read", { token });
    await charge(id, 1, 71_000);
    const before = await list(token);
    expect(before.map((n) => [n.title, n.read_at === null])).toEqual([
      ["Balance low", true],
      ["Plan changed", false],
    ]);

    const stream = await app.adapters.eventStore.readStream(userStream(id));
    for (const event of stream) await applyDeclared(notificationsProjection, event, app.adapters.documents);
    expect(await list(token)).toEqual(before);

    await app.service.projections!.rebuild(["notifications"]);
    expect(await list(token)).toEqual(before);
    expect(await app.adapters.documents.collection<NotificationDocument>("notifications").countDocuments({ userId: id })).toBe(2);
  });
});
