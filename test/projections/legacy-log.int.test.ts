import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { getTask, waitForSlotFree, type Json } from "../support/tasks.ts";
import { nextId } from "../../src/core/sequence.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { userStream } from "../../src/accounts/events.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allProjections } from "../../projections/index.ts";
import type { EventMetadata } from "../../src/core/event.ts";

/**
 * A log written by the release before transcripts moved to blobs and charges moved onto task slots:
 * segments inline in TaskCreated, TaskFinished and TranscriptEdited, and a charge the old charge worker
 * appended before the task's slot was released. The service must serve it, act on it once, and
 * replay it to the same read models.
 */
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

// As the old release wrote it: the acting user as a string (or null), no `system`.
const metadata = { correlationId: "legacy", causationId: null, userId: null } as unknown as EventMetadata;
const segment = (id: number, start: number, end: number, text: string) => ({ id, start, end, text, speaker: null, tokens: text.split(" ") });
const append = (stream: string, events: { type: string; data: Json }[]) =>
  app.adapters.eventStore.append(
    stream,
    events.map((e) => ({ id: crypto.randomUUID(), ...e, metadata })),
    { expectedRevision: "any" },
  );

async function legacyTasks(userId: number) {
  const supplied = await nextId(app.adapters.eventStore, "task", "legacy");
  const recognised = await nextId(app.adapters.eventStore, "task", "legacy");
  const created = (taskId: number, name: string, segments: unknown[] | null) => ({
    type: "TaskCreated",
    data: {
      taskId,
      userId,
      name,
      file: `${name}.mp3`,
      path: `uploads/${userId}/x/${name}.mp3`,
      disk: "objstore",
      size: 1000,
      duration: 5,
      cost: null,
      url: null,
      speakerDiarization: false,
      segments,
      createdAt: new Date().toISOString(),
    },
  });
  const finished = (taskId: number, name: string, segments: unknown[] | null, cost: number | null) => ({
    type: "TaskFinished",
    data: { userId, taskId, attempt: 1, name, segments, duration: 5, cost, summary: "An old summary.", mindmap: "# Old", quality: 4 },
  });
  await append(userStream(userId), [
    { type: "TaskAdmitted", data: { taskId: supplied, attempt: 1, admittedAt: new Date().toISOString() } },
    { type: "TaskAdmitted", data: { taskId: recognised, attempt: 1, admittedAt: new Date().toISOString() } },
  ]);
  await append(taskStream(supplied), [
    created(supplied, "Supplied", [segment(1, 0, 1000, "first words"), segment(2, 1000, 2000, "second words")]),
    finished(supplied, "Supplied", null, null),
    { type: "TranscriptEdited", data: { userId, segments: [segment(1, 0, 1500, "edited words")] } },
  ]);
  await append(taskStream(recognised), [created(recognised, "Recognised", null), { type: "TranscriptionStarted", data: { userId } }]);
  // The old charge worker got to the finished task before the slot worker did.
  await append(userStream(userId), [
    { type: "SecondsCharged", data: { taskId: recognised, seconds: 5, fromAllowance: 5, fromTopUp: 0, chargedAt: new Date().toISOString() } },
  ]);
  const { position } = await append(taskStream(recognised), [finished(recognised, "Recognised", [segment(1, 0, 4000, "recognised long ago")], 5)]);
  await app.service.waitForProjections(position);
  return { supplied, recognised };
}

async function snapshotOf(collection: string, ids: number[]) {
  return app.adapters.documents.collection(collection).find({ _id: { $in: ids.map(String) } }, { sort: { _id: 1 } });
}

describe("a log from before transcripts moved to blobs", () => {
  test("serves every task with its inline transcript, charges once, and edits on top of it", async () => {
    const user = await app.register();
    const { supplied, recognised } = await legacyTasks(user.id);

    const a = await getTask(app, user, supplied);
    expect((a.segments as Json[]).map((s) => s.text)).toEqual(["edited words"]);
    const b = await getTask(app, user, recognised);
    expect(b).toMatchObject({
      status: "finished",
      cost: 5,
      summary: "An old summary.",
      segments: [expect.objectContaining({ text: "recognised long ago", start: 0, end: 4000 })],
    });
    const srt = await app.request("GET", `/api/tasks/${recognised}/download/srt`, { token: user.token });
    expect(await srt.text()).toContain("recognised long ago");

    // The slots are released (by the new slot worker) without a second charge.
    await waitForSlotFree(app, user.id, recognised);
    await waitForSlotFree(app, user.id, supplied);
    const charges = (await app.adapters.eventStore.readStream(userStream(user.id))).filter((e) => e.type === "SecondsCharged");
    expect(charges.map((e) => (e.data as { taskId: number }).taskId)).toEqual([recognised]);

    // An edit of a legacy transcript reads it inline and writes the new one as a blob.
    const patched = await app.request("PATCH", `/api/tasks/${recognised}`, { token: user.token, json: { text: "corrected long ago" } });
    expect(patched.status).toBe(200);
    expect(((await getTask(app, user, recognised)).segments as Json[])[0]).toMatchObject({ text: "corrected long ago", start: 0, end: 4000 });
    const edit = (await app.adapters.eventStore.readStream(taskStream(recognised))).at(-1)!;
    expect(edit.data).toMatchObject({ transcript: { segments: 1 } });
  });

  test("replays to the same read models", async () => {
    const user = await app.register();
    const { supplied, recognised } = await legacyTasks(user.id);
    await waitForSlotFree(app, user.id, recognised);
    const ids = [supplied, recognised];
    const before = { tasks: await snapshotOf("tasks", ids), transcripts: await snapshotOf("transcripts", ids), users: await snapshotOf("users", [user.id]) };
    await app.service.projections!.stop();
    await new ProjectionRunner(app.adapters.eventStore, app.adapters.documents, allProjections, () => true, {
      transcripts: app.adapters.transcripts,
    }).rebuild();
    const after = { tasks: await snapshotOf("tasks", ids), transcripts: await snapshotOf("transcripts", ids), users: await snapshotOf("users", [user.id]) };
    expect(after).toEqual(before);
    expect(before.transcripts.map((t) => (t.segments as unknown[]).length)).toEqual([1, 1]);
  });
});

describe("events in older shapes are read in the current ones (upcast, the log untouched)", () => {
  test("task events name their taskId, TaskRetried says `attempt`, and metadata names one actor", async () => {
    const stream = taskStream(900_001);
    const old = (userId: unknown) => ({ correlationId: "old", causationId: null, userId }) as unknown as EventMetadata;
    await app.adapters.eventStore.append(
      stream,
      [
        { id: crypto.randomUUID(), type: "TaskRenamed", data: { userId: 5, name: "Old" }, metadata: old("5") },
        { id: crypto.randomUUID(), type: "TaskRetried", data: { userId: 5, attempts: 2, status: "pending" }, metadata: old("5") },
        { id: crypto.randomUUID(), type: "TranscriptionStarted", data: { userId: 5 }, metadata: old(null) },
      ],
      { expectedRevision: "any" },
    );
    const read = await app.adapters.eventStore.readStream(stream);
    expect(read.map((e) => e.data)).toEqual([
      { userId: 5, taskId: 900_001, name: "Old" },
      { userId: 5, taskId: 900_001, attempt: 2, status: "pending" },
      { userId: 5, taskId: 900_001 },
    ]);
    expect(read.map((e) => e.metadata)).toEqual([
      { correlationId: "old", causationId: null, userId: 5, system: null },
      { correlationId: "old", causationId: null, userId: 5, system: null },
      { correlationId: "old", causationId: null, userId: null, system: "unrecorded" },
    ]);
    // The same through the global log and a subscription.
    const all = (await app.adapters.eventStore.readAll({ limit: 1_000_000 })).filter((e) => e.streamName === stream);
    expect(all.map((e) => e.data)).toEqual(read.map((e) => e.data));
    const seen: unknown[] = [];
    const subscription = app.adapters.eventStore.subscribe({ after: read[0]!.position - 1 }, (event) => {
      if (event.streamName === stream) seen.push(event.metadata);
    });
    for (let i = 0; i < 100 && seen.length < 3; i++) await Bun.sleep(10);
    await subscription.stop();
    expect(seen).toEqual(read.map((e) => e.metadata));
  });
});
