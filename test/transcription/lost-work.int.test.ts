/**
 * Work lost with its message: a message dropped after its last delivery, or with the in-process
 * bus of a process that died, leaves a task pending and its slot held. The stuck-task sweeper re-drives the task
 * (TaskRequeued), which then finishes once and is charged once, and frees slots of attempts that ended without their
 * release, so the account is never 429 for good. Here a bus that loses chosen messages stands for the loss; the sweep
 * runs with a clock moved past its bounds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { until, workersCaughtUp } from "../support/eventually.ts";
import { createTask, failTask, getTask, holdsSlot, json, taskCommand, waitForStatus, type User } from "../support/tasks.ts";
import { spoken } from "../support/media-fixtures.ts";
import { freeEndedSlots, requeueLostTasks } from "../../src/transcription/stuck-tasks-job.ts";
import { userStream } from "../../src/accounts/events.ts";
import { taskStream } from "../../src/tasks/events.ts";
import type { Bus, MessageHandler } from "../../src/bus/port.ts";

type Reference = { type: string; streamName: string };
type Lost = Reference & { durable: string; deliverLate: () => Promise<void> };

/** A bus that loses the messages `loses` picks, per durable, as if each had been terminated: acknowledged unhandled. */
function losingBus(inner: Bus, loses: (durable: string, reference: Reference) => boolean, lost: Lost[]): Bus {
  return {
    publish: (subject, data, options) => inner.publish(subject, data, options),
    consume: (options, handler: MessageHandler) =>
      inner.consume(options, async (message) => {
        const reference = JSON.parse(new TextDecoder().decode(message.data)) as Reference;
        if (!loses(options.durable, reference)) return handler(message);
        lost.push({ ...reference, durable: options.durable, deliverLate: () => handler(message) });
      }),
    ping: () => inner.ping(),
    queueDepth: (durable) => inner.queueDepth(durable),
    close: () => inner.close(),
  };
}

/** What to lose: a durable's messages of these types, on these streams (absent: every stream). */
let losing: { durable: string; types: string[]; streams?: string[] }[] = [];
const lost: Lost[] = [];
const lose = (durable: string, types: string[], streams?: string[]) => losing.push({ durable, types, ...(streams && { streams }) });
const loses = (durable: string, { type, streamName }: Reference) =>
  losing.some((rule) => rule.durable === durable && rule.types.includes(type) && (rule.streams?.includes(streamName) ?? true));
const wasLost = (durable: string, type: string, taskId: number) =>
  until(`${durable} to lose ${type} of task ${taskId}`, () =>
    lost.find((l) => l.durable === durable && l.type === type && l.streamName === taskStream(taskId)),
  );

let app: TestApp;
let speech: Uint8Array;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, CHUNK_SECONDS: "10" }, { adapters: (opened) => ({ ...opened, bus: losingBus(opened.bus, loses, lost) }) });
  speech = new Uint8Array(await readFile(await spoken("one two three four five")));
}, 30_000);
afterAll(() => app?.close());

const later = (ms: number) => new Date(Date.now() + ms);
const deadlineSeconds = 7200;
const events = async (taskId: number) => app.adapters.eventStore.readStream(taskStream(taskId));
const count = async (taskId: number, type: string) => (await events(taskId)).filter((e) => e.type === type).length;
const charges = async (user: User, taskId: number) =>
  (await app.adapters.eventStore.readStream(userStream(user.id))).filter(
    (e) => e.type === "SecondsCharged" && (e.data as { taskId: number }).taskId === taskId,
  );
async function settle(): Promise<void> {
  await app.service.waitForProjections((await app.adapters.eventStore.readAll()).at(-1)!.position);
}
async function ownMedia(user: User): Promise<string> {
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/media.wav`;
  await app.adapters.blobs.put(key, speech, { contentType: "audio/wav" });
  return key;
}

describe("a task whose creation message was lost", () => {
  test("stays pending until the sweep re-drives it; it then finishes once, and the slot its lost finish held is freed and charged once", async () => {
    const user = await app.register();
    const path = await ownMedia(user);
    lose("transcription", ["TaskCreated"]);
    const id = await createTask(app, user, { name: "Lost", path });
    lose("task-slots", ["TaskFinished"], [taskStream(id)]);
    lose("transcription", ["TaskRequeued"], [taskStream(id)]);
    const late = await wasLost("transcription", "TaskCreated", id);
    await workersCaughtUp(app);
    expect((await getTask(app, user, id)).status).toBe("pending");

    // Before its bound the sweep leaves it; past a quarter of the deadline it is re-driven, once however many sweep.
    expect(await requeueLostTasks(app.adapters.eventStore, app.adapters.documents, new Date(), deadlineSeconds)).toEqual({ requeued: [], failed: [] });
    const [first, second] = await Promise.all([
      requeueLostTasks(app.adapters.eventStore, app.adapters.documents, later(1801_000), deadlineSeconds),
      requeueLostTasks(app.adapters.eventStore, app.adapters.documents, later(1801_000), deadlineSeconds),
    ]);
    expect([...first.requeued, ...second.requeued]).toEqual([id]);
    // The lost message turns up after all, before the re-drive's: the re-drive owns the work, and the late trigger
    // leaves it alone, so the attempt is transcribed once.
    const redrive = await wasLost("transcription", "TaskRequeued", id);
    await late.deliverLate();
    expect(await count(id, "TranscriptionStarted")).toBe(0);
    await redrive.deliverLate();

    const done = await waitForStatus(app, user, id, "finished", 20_000);
    expect(await count(id, "TranscriptionStarted")).toBe(1);
    expect(await count(id, "TaskFinished")).toBe(1);
    expect(await count(id, "TaskRequeued")).toBe(1);
    const cost = done.cost as number;
    expect(cost).toBeGreaterThan(0);

    // Its finish never reached the task-slots worker: the slot is held, unpaid, until the sweep frees it.
    await wasLost("task-slots", "TaskFinished", id);
    await workersCaughtUp(app);
    expect(await holdsSlot(app, user.id, id)).toBe(true);
    expect(await charges(user, id)).toEqual([]);
    await settle();
    expect(await freeEndedSlots(app.adapters.eventStore, app.adapters.documents, new Date())).toEqual([]);
    const sweeps = await Promise.all([1, 2].map(() => freeEndedSlots(app.adapters.eventStore, app.adapters.documents, later(61_000))));
    expect(sweeps.flat()).toEqual([id]);
    expect(await holdsSlot(app, user.id, id)).toBe(false);
    expect((await charges(user, id)).map((e) => (e.data as { seconds: number }).seconds)).toEqual([cost]);
    // A finished task is no longer the sweep's business.
    expect(await requeueLostTasks(app.adapters.eventStore, app.adapters.documents, later(7200_000), deadlineSeconds)).toEqual({ requeued: [], failed: [] });
  }, 30_000);

  test("with its transcript supplied, it is re-driven to its finish, not charged", async () => {
    const user = await app.register();
    lose("supplied-transcripts", ["TaskCreated"]);
    const id = await createTask(app, user, { name: "Supplied", path: await ownMedia(user), segments: [{ start: 0, end: 1000, text: "hello" }] });
    await wasLost("supplied-transcripts", "TaskCreated", id);
    await workersCaughtUp(app);
    expect((await getTask(app, user, id)).status).toBe("pending");
    const { requeued } = await requeueLostTasks(app.adapters.eventStore, app.adapters.documents, later(1801_000), deadlineSeconds);
    expect(requeued).toContain(id);
    await waitForStatus(app, user, id, "finished");
    expect(await count(id, "TaskFinished")).toBe(1);
    await workersCaughtUp(app);
    expect(await charges(user, id)).toEqual([]);
  }, 20_000);

  test("re-driven in vain, it fails after the last re-drive with a reason, and can be retried", async () => {
    const user = await app.register();
    lose("transcription", ["TaskCreated", "TaskRequeued"]);
    const id = await createTask(app, user, { name: "Never", path: await ownMedia(user) });
    await wasLost("transcription", "TaskCreated", id);
    for (let sweep = 1; sweep <= 4; sweep++) {
      await settle();
      const result = await requeueLostTasks(app.adapters.eventStore, app.adapters.documents, later(sweep * 1801_000), deadlineSeconds);
      expect(sweep < 4 ? result.requeued : result.failed).toContain(id);
    }
    const failed = await waitForStatus(app, user, id, "failed");
    expect(failed.failure_reason).toBe("Transcription did not start within 2 h; retry the task to try again.");
    expect(await count(id, "TaskRequeued")).toBe(3);
    losing = losing.filter((rule) => rule.durable !== "transcription");
    const retried = await app.request("PATCH", `/api/tasks/${id}/retry`, { token: user.token });
    expect((await json(retried)).status).toBe("pending");
    await waitForStatus(app, user, id, "finished", 20_000);
  }, 30_000);
});

describe("slots of tasks that ended without their release", () => {
  test("are freed by the sweep (deleted, failed, retried), and a create is never 429 for good", async () => {
    const user = await app.register();
    // The tasks stay pending (their recognition lost too) until deleted or failed, whose releases are lost.
    lose("transcription", ["TaskCreated", "TaskRetried"]);
    const ids: number[] = [];
    for (const name of ["A", "B", "C"]) ids.push(await createTask(app, user, { name, path: "uploads/missing.mp3" }));
    const [deleted, failed, retried] = ids as [number, number, number];
    lose("task-slots", ["TaskDeleted", "TaskFailed"], ids.map(taskStream));
    // Deleted by a process that died before it gave the slot back (the request frees it itself otherwise).
    await taskCommand(app, deleted, { type: "DeleteTask" });
    await failTask(app, failed);
    await failTask(app, retried);
    await wasLost("task-slots", "TaskFailed", retried);
    await wasLost("task-slots", "TaskDeleted", deleted);
    await workersCaughtUp(app);
    for (const id of ids) expect(await holdsSlot(app, user.id, id)).toBe(true);

    await settle();
    expect(await freeEndedSlots(app.adapters.eventStore, app.adapters.documents, new Date())).toEqual([]);
    const freed = await freeEndedSlots(app.adapters.eventStore, app.adapters.documents, later(61_000));
    expect(freed.toSorted()).toEqual(ids.toSorted());
    for (const id of ids) expect(await holdsSlot(app, user.id, id)).toBe(false);

    // Again, and this time the account asks before any sweep: admission frees what ended at once instead of a 429.
    expect((await app.request("PATCH", `/api/tasks/${retried}/retry`, { token: user.token })).status).toBe(200);
    const more: number[] = [];
    for (const name of ["D", "E"]) more.push(await createTask(app, user, { name, path: "uploads/missing.mp3" }));
    const ended = [...more, retried];
    lose("task-slots", ["TaskFailed"], ended.map(taskStream));
    for (const id of ended) await failTask(app, id);
    for (const id of ended) await wasLost("task-slots", "TaskFailed", id);
    await workersCaughtUp(app);
    for (const id of ended) expect(await holdsSlot(app, user.id, id)).toBe(true);
    const created = await app.request("POST", "/api/tasks", { token: user.token, json: { disk: "objstore", name: "F", path: "uploads/missing.mp3" } });
    expect(created.status).toBe(201);
    for (const id of ended) expect(await holdsSlot(app, user.id, id)).toBe(false);
    expect(await holdsSlot(app, user.id, (await json<{ id: number }>(created)).id)).toBe(true);
  }, 20_000);
});
