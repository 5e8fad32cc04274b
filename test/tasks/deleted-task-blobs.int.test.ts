import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { until } from "../support/eventually.ts";
import { createTask, getTask, json, segment, taskCommand, waitForStatus, type Json, type User } from "../support/tasks.ts";
import { blobKeys, expectNoOrphanBlobs, unreferencedBlobs } from "../support/orphan-blobs.ts";
import { handle } from "../../src/core/command-handler.ts";
import { nextId } from "../../src/core/sequence.ts";
import { taskDecider } from "../../src/tasks/decider.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { normalizeSegments } from "../../src/tasks/segments.ts";
import { TranscriptStore, type TranscriptRef } from "../../src/tasks/transcripts.ts";
import type { Segment } from "../../src/tasks/segments.ts";
import { Tasks } from "../../src/tasks/service.ts";
import { ChunkResults } from "../../src/transcription/chunk-results.ts";

/** Deleting a task deletes its blobs (DESIGN.md, "Personal data in an immutable log"), and only its own. */

let app: TestApp;
beforeAll(async () => {
  // Nothing here needs recognising: transcripts are supplied, media is only stored.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
});
afterAll(() => app.close());

const remove = (user: User, id: number) => app.request("DELETE", `/api/tasks/${id}`, { token: user.token });
const removeMany = (user: User, ids: number[]) => app.request("DELETE", "/api/tasks/bulk", { token: user.token, json: { ids } });
const stored = async (key: string) => (await app.adapters.blobs.head(key)) !== null;

/** Every blob key the task's stream names (transcripts, exports, media). */
async function keysOf(id: number): Promise<string[]> {
  const keys: string[] = [];
  for (const event of await app.adapters.eventStore.readStream(taskStream(id))) {
    const data = event.data as { transcript?: TranscriptRef | null; key?: string };
    if (data.transcript) keys.push(data.transcript.key);
    if (event.type === "ExportGenerated" && data.key) keys.push(data.key);
  }
  return keys;
}

/** A finished task with a supplied transcript, once its pdf and docx are made too. */
async function finishedWithExports(user: User, text: string): Promise<number> {
  const id = await createTask(app, user, { name: "Kept words", segments: [segment(0, 1500, text)] });
  await waitForStatus(app, user, id, "finished");
  await until(`task ${id}'s pdf and docx`, async () => (await keysOf(id)).filter((key) => key.startsWith("exports/")).length >= 2, 20_000);
  return id;
}

/** Media stored the way an upload stores it, under the user's prefix. */
async function storedMedia(user: User): Promise<string> {
  const key = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/call.mp3`;
  await app.adapters.blobs.put(key, new Uint8Array([1, 2, 3]), { contentType: "audio/mpeg" });
  return key;
}

describe("the orphan-blob check (test/support/orphan-blobs.ts) is honest", () => {
  test("it names a deleted task's transcript, export and chunk results put back, and leaves a live task's alone", async () => {
    const user = await app.register();
    const live = await finishedWithExports(user, "Still here.");
    const gone = await finishedWithExports(user, "Soon planted again.");
    const [transcript] = await keysOf(gone);
    const bytes = new Uint8Array(await new Response((await app.adapters.blobs.get(transcript!))!.body).arrayBuffer());
    expect((await remove(user, gone)).status).toBe(200);
    await expectNoOrphanBlobs(app);

    const planted = [transcript!, `exports/${gone}/1.pdf`, `work/recognition/${gone}-1/fake-0-1500.json`];
    for (const key of planted) await app.adapters.blobs.put(key, bytes, { contentType: "application/json" });
    // A live task's chunk results are its own: not an orphan.
    const liveChunk = `work/recognition/${live}-1/fake-0-1500.json`;
    await app.adapters.blobs.put(liveChunk, bytes, { contentType: "application/json" });
    try {
      expect(await unreferencedBlobs(app)).toEqual([
        `${planted[1]} (task ${gone} is deleted)`,
        `${transcript} (named only by deleted task ${gone})`,
        `${planted[2]} (task ${gone} is deleted)`,
      ]);
      const failure = await expectNoOrphanBlobs(app, 200).then(
        () => null,
        (error: Error) => error.message,
      );
      for (const key of planted) expect(failure).toContain(key);
      expect(failure).not.toContain(liveChunk);
      for (const key of await keysOf(live)) expect(await blobKeys(app)).toContain(key);
    } finally {
      for (const key of [...planted, liveChunk]) await app.adapters.blobs.delete(key);
    }
    await expectNoOrphanBlobs(app, 0);
  }, 60_000);

  test("media under an upload's key that no task or open upload names is an orphan", async () => {
    const user = await app.register();
    const key = await storedMedia(user);
    try {
      expect(await unreferencedBlobs(app)).toEqual([`${key} (named by no task)`]);
    } finally {
      await app.adapters.blobs.delete(key);
    }
  });
});

describe("deleting a task deletes its transcripts, exports and media", () => {
  test("every version of the transcript (supplied, edited) and both exports go; single and bulk delete", async () => {
    const user = await app.register();
    const single = await finishedWithExports(user, "First version.");
    const edited = await app.request("PATCH", `/api/tasks/${single}`, { token: user.token, json: { segments: [segment(0, 1500, "Second version.")] } });
    expect(edited.status).toBe(200);
    const bulk = await finishedWithExports(user, "In bulk.");
    const named = [...(await keysOf(single)), ...(await keysOf(bulk))];
    // The exports of the first version are already gone (a newer one replaces them); both transcripts are kept.
    const keys: string[] = [];
    for (const key of named) if (await stored(key)) keys.push(key);
    expect(keys.filter((key) => key.startsWith(`transcripts/task-${single}/`))).toHaveLength(2);
    expect(keys.filter((key) => key.startsWith("exports/")).length).toBeGreaterThanOrEqual(2);

    expect((await remove(user, single)).status).toBe(200);
    expect((await json(await removeMany(user, [bulk]))).deleted_count).toBe(1);
    await expectNoOrphanBlobs(app);
    for (const key of keys) expect({ key, stored: await stored(key) }).toEqual({ key, stored: false });
  }, 60_000);

  test("two tasks with the same words each have their own blob: deleting one leaves the other's transcript whole", async () => {
    const user = await app.register();
    const words = [segment(0, 1200, "The very same words.")];
    const [first, second] = [await createTask(app, user, { segments: words }), await createTask(app, user, { segments: words })];
    const [firstKey, secondKey] = [(await keysOf(first))[0]!, (await keysOf(second))[0]!];
    expect(firstKey).not.toBe(secondKey);
    expect((await remove(user, first)).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect(await stored(firstKey)).toBe(false);
    expect(((await getTask(app, user, second)).segments as Json[]).map((s) => s.text)).toEqual(["The very same words."]);
  });

  test("media another of the owner's tasks reads stays until that task is deleted too", async () => {
    const user = await app.register();
    const key = await storedMedia(user);
    const [first, second] = [await createTask(app, user, { path: key }), await createTask(app, user, { path: key })];
    expect((await remove(user, first)).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect(await stored(key)).toBe(true);
    expect((await app.request("GET", `/api/tasks/${second}/audio`, { token: user.token })).status).toBe(200);
    expect((await remove(user, second)).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect(await stored(key)).toBe(false);
  });

  test("what recognition kept of an attempt that never came back (its worker died) goes with the task", async () => {
    const user = await app.register();
    const id = await createTask(app, user); // pending: nothing recognises here
    const kept = new ChunkResults(app.adapters.blobs, "an engine");
    const chunks = [
      { start: 0, end: 30_000 },
      { start: 30_000, end: 52_000 },
    ];
    await kept.plan(id, 1, chunks);
    await kept.save(id, 1, { ...chunks[0]!, words: [], punctuated: false });
    const folder = `work/recognition/${id}-1/`;
    expect((await blobKeys(app)).filter((key) => key.startsWith(folder))).toEqual([`${folder}an_engine-0-30000.json`, `${folder}plan.json`]);
    expect((await remove(user, id)).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect((await blobKeys(app)).filter((key) => key.startsWith(folder))).toEqual([]);
  });

  test("an edit whose task is deleted between storing the new transcript and recording it leaves no transcript behind", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { segments: [segment(0, 1000, "Before.")] });
    // The deletion lands just after the edit stored its transcript (a parallel DELETE): stood in for here.
    const deletingFirst = new (class extends TranscriptStore {
      override async save(taskId: number, segments: readonly Segment[]) {
        const saved = await super.save(taskId, segments);
        await taskCommand(app, taskId, { type: "DeleteTask" });
        return saved;
      }
    })(app.adapters.blobs);
    const tasks = new Tasks(app.adapters.eventStore, app.adapters.documents, app.service.waitForProjections, deletingFirst);
    const metadata = { correlationId: crypto.randomUUID(), causationId: null, userId: user.id, system: null };
    await expect(tasks.update(user.id, id, { segments: [segment(0, 1000, "After.")] }, metadata)).rejects.toThrow("Task not found.");
    await expectNoOrphanBlobs(app);
  });

  test("a create refused with 429 leaves no transcript behind", async () => {
    const user = await app.register();
    for (let i = 0; i < 3; i++) await createTask(app, user); // pending: nothing transcribes them here
    const refused = await app.request("POST", "/api/tasks", {
      token: user.token,
      json: { disk: "objstore", name: "Refused", path: "uploads/a.mp3", segments: [segment(0, 1000, "Never a task.")] },
    });
    expect(refused.status).toBe(429);
    await expectNoOrphanBlobs(app, 0);
  });
});

describe("transcripts stored before they had task prefixes (one blob for the same words)", () => {
  /** What a task created before this layout looks like: its transcript at `transcripts/<aa>/<sha256>.json`. */
  async function legacyBlob(text: string): Promise<TranscriptRef> {
    const bytes = Buffer.from(JSON.stringify(normalizeSegments([{ start: 0, end: 1000, text }])));
    const sha256 = new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
    const key = `transcripts/${sha256.slice(0, 2)}/${sha256}.json`;
    await app.adapters.blobs.put(key, bytes, { contentType: "application/json" });
    return { key, sha256, segments: 1, bytes: bytes.byteLength };
  }

  async function legacyTask(user: User, transcript: TranscriptRef): Promise<number> {
    const taskId = await nextId(app.adapters.eventStore, "task", "legacy");
    const task = { taskId, userId: user.id, name: "Legacy", file: null, path: "uploads/a.mp3", disk: "objstore" as const, size: null };
    const { position } = await handle(
      app.adapters.eventStore,
      taskStream(taskId),
      taskDecider,
      (state) =>
        taskDecider.decide(
          {
            type: "CreateTask",
            now: new Date().toISOString(),
            task: { ...task, duration: 1, cost: null, url: null, speakerDiarization: false, transcript },
          },
          state,
        ),
      { metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: null, system: "test" } },
    );
    if (position !== null) await app.service.waitForProjections(position);
    await waitForStatus(app, user, taskId, "finished");
    return taskId;
  }

  test("the blob stays while another live task's transcript is it, and goes with the last of them", async () => {
    const user = await app.register();
    const transcript = await legacyBlob("Shared legacy words.");
    const [first, second] = [await legacyTask(user, transcript), await legacyTask(user, transcript)];
    expect((await remove(user, first)).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect(await stored(transcript.key)).toBe(true);
    expect(((await getTask(app, user, second)).segments as Json[]).map((s) => s.text)).toEqual(["Shared legacy words."]);
    expect((await remove(user, second)).status).toBe(200);
    await expectNoOrphanBlobs(app);
    expect(await stored(transcript.key)).toBe(false);
  }, 60_000);

  test("deleted together in one bulk delete, neither keeps it for the other", async () => {
    const user = await app.register();
    const transcript = await legacyBlob("Legacy words deleted together.");
    const ids = [await legacyTask(user, transcript), await legacyTask(user, transcript)];
    expect((await json(await removeMany(user, ids))).deleted_count).toBe(2);
    await expectNoOrphanBlobs(app);
    expect(await stored(transcript.key)).toBe(false);
  }, 60_000);
});
