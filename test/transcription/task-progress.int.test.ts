/**
 * A task's status stream says where its transcription is: preparing, recognising with the share
 * of the media done, summarising, then finished; what the pipeline reports lives beside its chunk results and is
 * gone once the attempt ends. The recogniser and the summariser here are held by the test, chunk by chunk, so each
 * stage is seen whatever the machine's pace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { until } from "../support/eventually.ts";
import { createTask, taskCommand } from "../support/tasks.ts";
import { expectNoOrphanBlobs } from "../support/orphan-blobs.ts";
import { meetingRecording } from "../support/media-fixtures.ts";
import { TranscriptionPipeline } from "../../src/transcription/pipeline.ts";
import { createSummarizer } from "../../src/transcription/summary/index.ts";
import type { Summarizer } from "../../src/transcription/summary/summarizer.ts";
import { taskFacts } from "../../src/transcription/media-source.ts";
import { progressKey } from "../../src/transcription/chunk-results.ts";
import type { SpeechEngine } from "../../src/transcription/engine.ts";
import type { StatusData } from "../../src/transcription/status-stream.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { serverSentEvents } from "../../src/web/app/tasks/server-sent-events.ts";

let app: TestApp;
let recording: Uint8Array;
beforeAll(async () => {
  // Recognition by the test's own pipeline below; the service's own worker stays off. 5 s chunks: several of them.
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", CHUNK_SECONDS: "5" });
  recording = await meetingRecording();
}, 60_000);
afterAll(() => app.close());

/** Lets the held work go, one piece at a time or all at once. */
class Gate {
  private waiting: (() => void)[] = [];
  private open = false;
  held = 0;
  pass(): Promise<void> {
    if (this.open) return Promise.resolve();
    this.held++;
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  releaseOne(): void {
    this.waiting.shift()?.();
  }
  releaseAll(): void {
    this.open = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
}

describe("the status stream follows a transcription's stages", () => {
  test("preparing, recognising chunk by chunk with a percentage, summarising, finished; the report is gone after", async () => {
    const user = await app.register();
    const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/followed.mp3`;
    await app.adapters.blobs.put(path, recording, { contentType: "audio/mpeg" });
    const id = await createTask(app, user, { name: "Followed", path });
    await taskCommand(app, id, { type: "StartTranscription" });

    const chunks = new Gate();
    const summary = new Gate();
    const engine: SpeechEngine = {
      name: "held",
      async recognize(_wav, { durationMs }) {
        await chunks.pass();
        return { words: [{ text: "word", start: 0, end: Math.min(500, durationMs), confidence: 0.9 }], punctuated: false };
      },
    };
    const summarise = createSummarizer(app.config.transcription);
    const summarizer: Summarizer = { ...summarise, summarize: async (...args) => (await summary.pass(), summarise.summarize(...args)) };
    const pipeline = new TranscriptionPipeline({
      store: app.adapters.eventStore,
      blobs: app.adapters.blobs,
      transcripts: app.adapters.transcripts,
      engine,
      summarizer,
      config: { ...app.config.transcription, recognitionConcurrency: 1 },
    });

    const response = await app.request("GET", `/api/tasks/${id}/events`, { token: user.token });
    expect(response.status).toBe(200);
    const seen: StatusData[] = [];
    const reading = (async () => {
      for await (const message of serverSentEvents(response.body!)) if (message.event === "status") seen.push(JSON.parse(message.data) as StatusData);
    })();
    const last = () => seen.at(-1);

    const facts = taskFacts(await app.adapters.eventStore.readStream(taskStream(id)))!;
    const running = pipeline.run(id, facts, 1, { correlationId: "progress", causationId: null, userId: null, system: "test" });
    await until("the first chunk under way", async () => last()?.stage === "recognising", 20_000);
    const total = last()!.progress!.chunks;
    expect(total).toBeGreaterThanOrEqual(3);
    expect(last()!.progress).toEqual({ percent: 0, chunks_done: 0, chunks: total });
    expect(seen[0]).toMatchObject({ status: "scribing", attempts: 1, failure_reason: null, stage: "preparing", progress: null });

    chunks.releaseOne();
    await until("one chunk done", async () => (last()?.progress?.chunks_done ?? 0) >= 1, 10_000);
    const one = last()!.progress!;
    expect(one.percent).toBeGreaterThan(0);
    expect(one.percent).toBeLessThan(100);
    chunks.releaseAll();
    await until("summarising", async () => last()?.stage === "summarising", 10_000);
    expect(last()!.progress).toBeNull();
    summary.releaseAll();
    await running;
    await reading; // the stream ends with the task
    expect(last()).toEqual({ status: "finished", attempts: 1, failure_reason: null, stage: null, progress: null });

    // The percentage only grows, and the stages come in order.
    const percents = seen.flatMap((s) => (s.progress ? [s.progress.percent] : []));
    expect(percents).toEqual([...percents].sort((a, b) => a - b));
    const stages = seen.map((s) => s.stage).filter((stage, i, all) => stage !== all[i - 1]);
    expect(stages).toEqual(["preparing", "recognising", "summarising", null]);
    expect(await app.adapters.blobs.head(progressKey(id, 1))).toBeNull();
    await expectNoOrphanBlobs(app);
  }, 60_000);

  test("a task whose chunks wait behind the account's other task for the recogniser is queued, with its progress at 0", async () => {
    const user = await app.register();
    const scribing = async (name: string) => {
      const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/${name}.mp3`;
      await app.adapters.blobs.put(path, recording, { contentType: "audio/mpeg" });
      const id = await createTask(app, user, { name, path });
      await taskCommand(app, id, { type: "StartTranscription" });
      return { id, facts: taskFacts(await app.adapters.eventStore.readStream(taskStream(id)))! };
    };
    const first = await scribing("First");
    const second = await scribing("Second");
    const chunks = new Gate();
    const engine: SpeechEngine = {
      name: "held",
      async recognize(_wav, { durationMs }) {
        await chunks.pass();
        return { words: [{ text: "word", start: 0, end: Math.min(500, durationMs), confidence: 0.9 }], punctuated: false };
      },
    };
    // One recogniser, shared by the account's two tasks: the first holds it, the second's chunks wait their turn.
    const pipeline = new TranscriptionPipeline({
      store: app.adapters.eventStore,
      blobs: app.adapters.blobs,
      transcripts: app.adapters.transcripts,
      engine,
      summarizer: createSummarizer(app.config.transcription),
      config: { ...app.config.transcription, recognitionConcurrency: 1 },
    });
    const metadata = { correlationId: "queued", causationId: null, userId: null, system: "test" };
    const runs = [pipeline.run(first.id, first.facts, 1, metadata)];
    await until("the first task's chunk holds the recogniser", async () => chunks.held === 1, 20_000);
    runs.push(pipeline.run(second.id, second.facts, 1, metadata));

    const response = await app.request("GET", `/api/tasks/${second.id}/events`, { token: user.token });
    const seen: StatusData[] = [];
    const reading = (async () => {
      for await (const message of serverSentEvents(response.body!)) if (message.event === "status") seen.push(JSON.parse(message.data) as StatusData);
    })();
    await until("the second task queued", async () => seen.at(-1)?.stage === "queued", 10_000);
    expect(seen.at(-1)!.progress).toMatchObject({ percent: 0, chunks_done: 0 });
    chunks.releaseAll();
    await Promise.all(runs);
    await reading;
    expect(seen.at(-1)).toMatchObject({ status: "finished", stage: null });
  }, 60_000);

  test("a pending task is queued; the stream's data has the same keys at every stage", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { name: "Queued", path: "uploads/q.mp3" });
    const response = await app.request("GET", `/api/tasks/${id}/events`, { token: user.token });
    const reader = serverSentEvents(response.body!);
    const first = (await reader.next()).value!;
    await reader.return(undefined);
    expect(JSON.parse(first.data)).toEqual({ status: "pending", attempts: 1, failure_reason: null, stage: "queued", progress: null });
  });
});

describe("the status stream's route refuses what is not a task of the caller's, in the one error shape", () => {
  test("hostile ids: not numbers, huge, negative, built-in names, bad encodings; another user's task; no token", async () => {
    const user = await app.register();
    const other = await app.register();
    const theirs = await createTask(app, other, { name: "Theirs", path: "uploads/t.mp3" });
    for (const id of [
      "abc",
      "1e309",
      "-1",
      "0",
      "1.5",
      "99999999999999999999999",
      "__proto__",
      "constructor",
      "%00",
      "%ff%fe",
      "1%20OR%201=1",
      "x".repeat(5000),
    ]) {
      const response = await app.request("GET", `/api/tasks/${id}/events`, { token: user.token });
      expect([404, 422]).toContain(response.status);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(typeof ((await response.json()) as { message: unknown }).message).toBe("string");
    }
    const refused = await app.request("GET", `/api/tasks/${theirs}/events`, { token: user.token });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { message: string }).message).toBeString();
    expect((await app.request("GET", `/api/tasks/${theirs}/events`)).status).toBe(401);
  });
});
