import { describe, expect, test } from "bun:test";
import { taskStatusStream } from "../../src/transcription/status-stream.ts";
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
      ["status", { status: "pending", attempts: 1, failure_reason: null }],
      ["status", { status: "scribing", attempts: 1, failure_reason: null }],
      ["status", { status: "failed", attempts: 1, failure_reason: "The media is silent: there is no speech to transcribe." }],
    ]);
    expect(comments).toContain("heartbeat");
  });

  test("a deleted task ends the stream with `deleted`", async () => {
    const { events, ended } = await readSse(new Response(taskStatusStream(async () => null, { pollMs: 10 })), 2000);
    expect(ended).toBe(true);
    expect(events).toEqual([{ event: "deleted", data: "{}" }]);
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
