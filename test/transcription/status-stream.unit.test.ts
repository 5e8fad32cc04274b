import { describe, expect, test } from "bun:test";
import { liveStage, taskStatusStream } from "../../src/transcription/status-stream.ts";
import type { RecognitionProgress } from "../../src/transcription/progress.ts";
import type { TaskDocument } from "../../src/tasks/tasks-projection.ts";
import { readSse } from "../support/sse.ts";

const doc = (status: string, failureReason: string | null = null, attempts = 1) => ({ status, attempts, failureReason }) as unknown as TaskDocument;

describe("task status as Server-Sent Events", () => {
  test("sends the status at once and on each change only, with heartbeats, and ends when the task ends", async () => {
    const states = [
      doc("pending"),
      doc("pending"),
      doc("scribing"),
      doc("scribing"),
      doc("scribing"),
      doc("failed", "The media is silent: there is no speech to transcribe."),
    ];
    let i = 0;
    const stream = taskStatusStream(async () => states[Math.min(i++, states.length - 1)]!, { pollMs: 30, heartbeatMs: 40 });
    const { events, comments, ended } = await readSse(new Response(stream), 5000);
    expect(ended).toBe(true);
    expect(events.map((e) => [e.event, JSON.parse(e.data)])).toEqual([
      ["status", { status: "pending", attempts: 1, failure_reason: null, stage: "queued", progress: null }],
      ["status", { status: "scribing", attempts: 1, failure_reason: null, stage: "preparing", progress: null }],
      ["status", { status: "failed", attempts: 1, failure_reason: "The media is silent: there is no speech to transcribe.", stage: null, progress: null }],
    ]);
    expect(comments).toContain("heartbeat");
  });

  test("a deleted task ends the stream with `deleted`", async () => {
    const { events, ended } = await readSse(new Response(taskStatusStream(async () => null, { pollMs: 10 })), 2000);
    expect(ended).toBe(true);
    expect(events).toEqual([{ event: "deleted", data: "{}" }]);
  });

  test("a read model that keeps failing ends the stream after 20 reads in a row, and one that recovers does not", async () => {
    let reads = 0;
    const failing = taskStatusStream(
      async () => {
        reads++;
        throw new Error("Database has closed");
      },
      { pollMs: 5 },
    );
    const { events, ended } = await readSse(new Response(failing), 5000);
    expect(ended).toBe(true);
    expect(events).toEqual([]);
    expect(reads).toBe(20);
    let i = 0;
    const flaky = taskStatusStream(
      async () => {
        i++;
        if (i % 19 !== 0) throw new Error("busy");
        return doc(i > 60 ? "finished" : "scribing");
      },
      { pollMs: 1 },
    );
    const recovered = await readSse(new Response(flaky), 5000);
    expect(recovered.events.map((e) => JSON.parse(e.data).status)).toEqual(["scribing", "finished"]);
  });

  test("a client that goes away stops the polling", async () => {
    let reads = 0;
    const stream = taskStatusStream(async () => (reads++, doc("scribing")), { pollMs: 10 });
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel();
    const after = reads;
    await Bun.sleep(60);
    expect(reads - after).toBeLessThanOrEqual(1);
  });
});

const progress = (stage: RecognitionProgress["stage"], chunksDone = 0, chunks = 4, chunksRunning = 0): RecognitionProgress => ({
  stage,
  chunks,
  chunksDone,
  chunksRunning,
  msDone: chunksDone * 30_000,
  msTotal: chunks * 30_000,
});

describe("a task's stage and progress", () => {
  test("pending is queued, waiting is fetching, an ended task has none", () => {
    expect(liveStage("pending", null)).toEqual({ stage: "queued", progress: null });
    expect(liveStage("waiting", null)).toEqual({ stage: "fetching", progress: null });
    expect(liveStage("finished", progress("summarising"))).toEqual({ stage: null, progress: null });
    expect(liveStage("failed", progress("recognising", 2))).toEqual({ stage: null, progress: null });
  });

  test("scribing: preparing until the pipeline reports chunks, then recognising with the share of the media done, then summarising", () => {
    expect(liveStage("scribing", null)).toEqual({ stage: "preparing", progress: null });
    expect(liveStage("scribing", progress("preparing"))).toEqual({ stage: "preparing", progress: null });
    expect(liveStage("scribing", progress("recognising", 0, 4, 2))).toEqual({ stage: "recognising", progress: { percent: 0, chunks_done: 0, chunks: 4 } });
    expect(liveStage("scribing", progress("recognising", 3, 4, 1))).toEqual({ stage: "recognising", progress: { percent: 75, chunks_done: 3, chunks: 4 } });
    expect(liveStage("scribing", progress("summarising", 4))).toEqual({ stage: "summarising", progress: null });
  });

  test("the percentage follows media time, not chunk count, and stays whole and within 0-100", () => {
    const uneven = { stage: "recognising", chunks: 3, chunksDone: 1, chunksRunning: 1, msDone: 50_000, msTotal: 60_000 } as const;
    expect(liveStage("scribing", uneven).progress).toEqual({ percent: 83, chunks_done: 1, chunks: 3 });
    const odd = { stage: "recognising", chunks: 2, chunksDone: 5, chunksRunning: 0, msDone: 90_000, msTotal: 60_000 } as const;
    expect(liveStage("scribing", odd).progress).toEqual({ percent: 100, chunks_done: 2, chunks: 2 });
    const empty = { stage: "recognising", chunks: 0, chunksDone: 0, chunksRunning: 0, msDone: 0, msTotal: 0 } as const;
    expect(liveStage("scribing", empty).progress).toEqual({ percent: 0, chunks_done: 0, chunks: 0 });
  });

  test("chunks all waiting for a recogniser, none done, read as queued with their progress", () => {
    expect(liveStage("scribing", progress("recognising", 0, 4, 0))).toEqual({ stage: "queued", progress: { percent: 0, chunks_done: 0, chunks: 4 } });
  });

  test("the stream sends the progress the pipeline reports, reads it at most every progressEveryMs, and only for the current attempt", async () => {
    const states = [doc("scribing"), doc("scribing"), doc("scribing"), doc("scribing"), doc("scribing"), doc("scribing"), doc("finished")];
    const reports = [progress("recognising", 1), progress("recognising", 2), progress("summarising", 4)];
    let i = 0;
    const reads: number[] = [];
    const stream = taskStatusStream(async () => states[Math.min(i++, states.length - 1)]!, {
      pollMs: 20,
      progressEveryMs: 35,
      readProgress: async (attempt) => {
        reads.push(attempt);
        return reports[Math.min(reads.length - 1, reports.length - 1)]!;
      },
    });
    const { events, ended } = await readSse(new Response(stream), 5000);
    expect(ended).toBe(true);
    const sent = events.map((e) => JSON.parse(e.data) as { stage: string | null; progress: unknown });
    expect(sent.map((e) => e.stage)).toEqual(["recognising", "recognising", "summarising", null]);
    expect(sent[0]!.progress).toEqual({ percent: 25, chunks_done: 1, chunks: 4 });
    expect(sent[1]!.progress).toEqual({ percent: 50, chunks_done: 2, chunks: 4 });
    expect(reads.every((attempt) => attempt === 1)).toBe(true);
    expect(reads.length).toBeLessThan(6);
  });

  test("a progress that cannot be read leaves the status flowing", async () => {
    const states = [doc("scribing"), doc("scribing"), doc("finished")];
    let i = 0;
    const stream = taskStatusStream(async () => states[Math.min(i++, states.length - 1)]!, {
      pollMs: 10,
      readProgress: async () => {
        throw new Error("the blob store is away");
      },
    });
    const { events, ended } = await readSse(new Response(stream), 5000);
    expect(ended).toBe(true);
    expect(events.map((e) => JSON.parse(e.data).stage)).toEqual(["preparing", null]);
  });
});
