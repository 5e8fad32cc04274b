import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, taskCommand, waitForStatus } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { meetingRecording } from "../support/media-fixtures.ts";
import { Limiter } from "../../src/transcription/limiter.ts";
import { TranscriptionPipeline } from "../../src/transcription/pipeline.ts";
import { createSummarizer } from "../../src/transcription/summary/index.ts";
import { taskFacts } from "../../src/transcription/media-source.ts";
import type { SpeechEngine } from "../../src/transcription/engine.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { deliverTo } from "../../src/core/worker.ts";

describe("the recognisers are shared between accounts", () => {
  test("an account with nothing running starts at once; queued chunks are served in turn", async () => {
    const limiter = new Limiter(1);
    const order: string[] = [];
    const gates = new Map<string, () => void>();
    const job = (name: string) => () =>
      new Promise<void>((resolve) => {
        order.push(name);
        gates.set(name, resolve);
      });
    const tick = () => Bun.sleep(0);
    const finish = async (name: string) => {
      gates.get(name)!();
      await tick();
      await tick();
    };
    const all = [limiter.run(job("a1"), "a"), limiter.run(job("a2"), "a"), limiter.run(job("a3"), "a"), limiter.run(job("a4"), "a")];
    await tick();
    all.push(limiter.run(job("b1"), "b"), limiter.run(job("c1"), "c"), limiter.run(job("b2"), "b"));
    await tick();
    // b1 did not wait for a1 to end: it took an express slot; c1 waits (the express slots are taken).
    expect(order).toEqual(["a1", "b1"]);
    await finish("a1"); // the regular slot goes to the next in turn: a
    expect(order).toEqual(["a1", "b1", "a2"]);
    await finish("b1"); // the express slot goes to an account with nothing running: c
    expect(order).toEqual(["a1", "b1", "a2", "c1"]);
    await finish("a2"); // then b, before a again
    expect(order).toEqual(["a1", "b1", "a2", "c1", "b2"]);
    for (const name of ["c1", "b2", "a3", "a4"]) if (gates.has(name)) await finish(name);
    for (const name of ["a3", "a4"]) if (gates.has(name)) await finish(name);
    await Promise.all(all);
    expect(order).toHaveLength(7);
  });

  test("a job granted while its account has another running is bulk; an account's first, express or not, is not", async () => {
    const limiter = new Limiter(2);
    const slots = new Map<string, boolean>();
    const gates: (() => void)[] = [];
    const job = (name: string) => (slot: { bulk: boolean }) =>
      new Promise<void>((resolve) => {
        slots.set(name, slot.bulk);
        gates.push(resolve);
      });
    const all = ["a1", "a2", "a3"].map((name) => limiter.run(job(name), "a"));
    await Bun.sleep(0);
    all.push(limiter.run(job("b1"), "b"));
    await Bun.sleep(0);
    expect(Object.fromEntries(slots)).toEqual({ a1: false, a2: true, b1: false });
    gates.shift()!(); // a1 ends: a3 takes its slot beside a2, still running
    await Bun.sleep(0);
    await Bun.sleep(0);
    expect(slots.get("a3")).toBe(true);
    while (gates.length > 0) gates.shift()!();
    await Promise.all(all);
  });

  test("never more than twice the limit at once, and the limit alone for one account", async () => {
    let active = 0;
    let peak = 0;
    const measure = (limiter: Limiter, keys: number) =>
      Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          limiter.run(
            async () => {
              peak = Math.max(peak, ++active);
              await Bun.sleep(1);
              active--;
            },
            `user${i % keys}`,
          ),
        ),
      );
    await measure(new Limiter(3), 1);
    expect(peak).toBe(3);
    peak = 0;
    await measure(new Limiter(3), 6);
    expect(peak).toBeGreaterThan(3);
    expect(peak).toBeLessThanOrEqual(6);
  });
});

let app: TestApp;
let recording: Uint8Array;
beforeAll(async () => {
  // Recognition by the test's own engines below; the service's own worker stays off.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", CHUNK_SECONDS: "5" });
  recording = await meetingRecording();
}, 60_000);
afterAll(() => app.close());

/** An engine that answers one word per chunk after `ms`, counting calls, and obeying the abort signal. */
function countingEngine(ms: number): SpeechEngine & { calls: number } {
  const engine = {
    name: "counting",
    calls: 0,
    async recognize(_wav: string, { durationMs, signal }: { durationMs: number; signal?: AbortSignal }) {
      engine.calls++;
      await Bun.sleep(ms);
      signal?.throwIfAborted();
      return { words: [{ text: "word", start: 0, end: Math.min(500, durationMs), confidence: 0.9 }], punctuated: false };
    },
  };
  return engine;
}

async function scribingTask(name: string): Promise<{ id: number; userId: number }> {
  const user = await app.register();
  const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/${name}.mp3`;
  await app.adapters.blobs.put(path, recording, { contentType: "audio/mpeg" });
  const id = await createTask(app, user, { name, path });
  await taskCommand(app, id, { type: "StartTranscription" });
  return { id, userId: user.id };
}

function pipelineWith(engine: SpeechEngine) {
  return new TranscriptionPipeline({
    store: app.adapters.eventStore,
    blobs: app.adapters.blobs,
    transcripts: app.adapters.transcripts,
    engine,
    summarizer: createSummarizer(app.config.transcription),
    config: { ...app.config.transcription, recognitionConcurrency: 1 },
  });
}

describe("a transcription delivered again resumes from the chunks already recognised", () => {
  test("the second delivery recognises only what the first did not finish, and the task finishes once", async () => {
    const { id } = await scribingTask("Resumed");
    const facts = taskFacts(await app.adapters.eventStore.readStream(taskStream(id)))!;
    const metadata = { correlationId: "resume", causationId: null, userId: null, system: "test" };

    // The first delivery stops (the worker is shutting down) after two chunks.
    const first = countingEngine(30);
    const stopping = new AbortController();
    const firstRun = pipelineWith(first);
    const recognise = first.recognize.bind(first);
    first.recognize = async (wav, options) => {
      const result = await recognise(wav, options);
      if (first.calls === 2) stopping.abort(new Error("the service is stopping"));
      return result;
    };
    expect(firstRun.run(id, facts, 1, metadata, stopping.signal)).rejects.toThrow("stopping");
    await Bun.sleep(300);
    const kept = join(app.config.dataDir, "blobs", "work", "recognition", `${id}-1`);
    const results = () => (existsSync(kept) ? readdirSync(kept).filter((f) => /^counting-\d+-\d+\.json$/.test(f)) : []);
    expect(results()).toHaveLength(2);

    const second = countingEngine(5);
    const secondRun = pipelineWith(second);
    await secondRun.run(id, facts, 1, metadata);
    const chunks = secondRun.resumedChunks + second.calls;
    expect(chunks).toBeGreaterThanOrEqual(4);
    expect(secondRun.resumedChunks).toBe(2);
    const events = await app.adapters.eventStore.readStream(taskStream(id));
    expect(events.filter((e) => e.type === "TaskFinished")).toHaveLength(1);
    // The kept chunk results are gone once the attempt has ended.
    expect(results()).toEqual([]);
  }, 30_000);
});

describe("deleting a task in flight cancels its work", () => {
  test("the recogniser stops within a second of the delete, and nothing is finished or charged", async () => {
    const engine = countingEngine(200);
    const pipeline = pipelineWith(engine);
    const { transcriptionWorker } = await import("../../src/transcription/transcription-worker.ts");
    const worker = transcriptionWorker(app.adapters.eventStore, pipeline, { ackWaitMs: 30_000, tasksAtOnce: 4, cancelCheckMs: 100 });
    const user = await app.register();
    const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/long.mp3`;
    await app.adapters.blobs.put(path, recording, { contentType: "audio/mpeg" });
    const id = await createTask(app, user, { name: "Deleted in flight", path });
    const created = (await app.adapters.eventStore.readStream(taskStream(id)))[0]!;
    const message = { deliveryCount: 1, inProgress: () => undefined } as never;
    const handled = deliverTo(worker, created, message);
    await waitForStatus(app, user, id, "scribing", 10_000);
    while (engine.calls === 0) await Bun.sleep(10);

    const deletedAt = Date.now();
    expect((await app.request("DELETE", `/api/tasks/${id}`, { token: user.token })).status).toBe(200);
    await handled; // returns (acknowledged) once cancelled
    expect(Date.now() - deletedAt).toBeLessThan(1000);
    const callsAtCancel = engine.calls;
    await Bun.sleep(500);
    expect(engine.calls).toBe(callsAtCancel);
    const types = (await app.adapters.eventStore.readStream(taskStream(id))).map((e) => e.type);
    expect(types).not.toContain("TaskFinished");
    expect(types).toContain("TaskDeleted");
    await expectNoOrphanBlobs(app);
    const user2 = await json<{ balance: { used_seconds: number } }>(await app.request("GET", "/api/user", { token: user.token }));
    expect(user2.balance.used_seconds).toBe(0);
  }, 30_000);

  test("deleted between storing its transcript and recording it: the transcript is deleted too", async () => {
    const { id } = await scribingTask("Deleted-while-finishing");
    const facts = taskFacts(await app.adapters.eventStore.readStream(taskStream(id)))!;
    // The deletion lands while the summary is made, after the recogniser and before the transcript is stored.
    const summarizer = {
      name: "deleting",
      async summarize() {
        await taskCommand(app, id, { type: "DeleteTask" });
        return { summary: null, mindmap: null };
      },
    };
    const pipeline = new TranscriptionPipeline({
      store: app.adapters.eventStore,
      blobs: app.adapters.blobs,
      transcripts: app.adapters.transcripts,
      engine: countingEngine(5),
      summarizer,
      config: app.config.transcription,
    });
    const metadata = { correlationId: "deleted-while-finishing", causationId: null, userId: null, system: "test" };
    await expect(pipeline.run(id, facts, 1, metadata)).rejects.toThrow("Task not found.");
    await expectNoOrphanBlobs(app);
  }, 30_000);
});
