import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, getTask, json, waitForStatus, type Json } from "../support/tasks.ts";
import { taskStream } from "../../src/tasks/events.ts";
import { eventBytes, maxEventBytes } from "../../src/eventstore/event-size.ts";
import type { TranscriptRef } from "../../src/tasks/transcripts.ts";
import type { RecordedEvent } from "../../src/core/event.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

/** `count` segments of three seconds, each a sentence of `words` words: six hours is 7,200 of them. */
function longTranscript(count: number, words = 9) {
  return Array.from({ length: count }, (_, i) => ({
    start: i * 3000,
    end: i * 3000 + 2900,
    text: Array.from({ length: words }, (_, w) => `word${(i * words + w) % 977}`).join(" "),
  }));
}

const largestEvent = (events: RecordedEvent[]) => Math.max(...events.map(eventBytes));
const readTask = async (id: number) => app.adapters.eventStore.readStream(taskStream(id));

describe("transcripts live in the blob store; events carry a reference", () => {
  test("a six-hour transcript: the task answers every segment, and no event of it is over 64 KiB", async () => {
    const user = await app.register();
    const segments = longTranscript(7200);
    const id = await createTask(app, user, { name: "Six hours", segments, duration: 21_600 });
    const task = await waitForStatus(app, user, id, "finished", 20_000);
    const served = task.segments as Json[];
    expect(served).toHaveLength(7200);
    expect(served[7199]).toMatchObject({ id: 7200, start: 7199 * 3000, end: 7199 * 3000 + 2900, text: segments[7199]!.text });

    const events = await readTask(id);
    expect(largestEvent(events)).toBeLessThanOrEqual(maxEventBytes);
    const created = events[0]!.data as { transcript: TranscriptRef; segments?: unknown };
    expect(created.segments).toBeUndefined();
    expect(created.transcript.key).toBe(`transcripts/task-${id}/${created.transcript.sha256}.json`);
    expect(created.transcript.segments).toBe(7200);
    // Immutable and content-addressed: the blob's bytes hash to the name the event gives.
    const blob = await app.adapters.blobs.get(created.transcript.key);
    const bytes = new Uint8Array(await new Response(blob!.body).arrayBuffer());
    expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(created.transcript.sha256);
    expect(bytes.byteLength).toBe(created.transcript.bytes);

    const txt = await app.request("GET", `/api/tasks/${id}/download/txt`, { token: user.token });
    expect(txt.status).toBe(200);
    expect((await txt.text()).trim().split("\n").length).toBeGreaterThanOrEqual(7200);
  }, 60_000);

  test("a 10 MB text edit (the most PATCH takes) is stored, served back, and recorded as a small event", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { name: "Edited", segments: longTranscript(7200, 1) });
    await waitForStatus(app, user, id, "finished", 20_000);
    const line = (i: number) => `${i} ${"lorem ipsum dolor sit amet ".repeat(51)}`.trim();
    const text = Array.from({ length: 7200 }, (_, i) => line(i)).join("\n");
    expect(text.length).toBeGreaterThan(9_900_000); // the most PATCH takes: 10,000,000 characters
    const patched = await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { text } });
    expect(patched.status).toBe(200);
    const task = await getTask(app, user, id);
    expect((task.segments as Json[])[4321]).toMatchObject({ text: line(4321), start: 4321 * 3000 });
    const edited = (await readTask(id)).find((e) => e.type === "TranscriptEdited")!;
    expect(eventBytes(edited)).toBeLessThan(1024);
  }, 60_000);

  test("the same transcript twice in one task is one blob; another task's same words are its own blob", async () => {
    const user = await app.register();
    const segments = longTranscript(3);
    const id = await createTask(app, user, { name: "One", segments });
    const first = (await readTask(id))[0]!.data as { transcript: TranscriptRef };
    expect((await app.request("PATCH", `/api/tasks/${id}`, { token: user.token, json: { segments } })).status).toBe(200);
    const again = (await readTask(id)).find((e) => e.type === "TranscriptEdited")!.data as { transcript: TranscriptRef };
    expect(again.transcript).toEqual(first.transcript);
    const second = (await readTask(await createTask(app, user, { name: "Two", segments })))[0]!.data as { transcript: TranscriptRef };
    expect(second.transcript).toEqual({ ...first.transcript, key: second.transcript.key });
    expect(second.transcript.key).not.toBe(first.transcript.key);
  });

  test("a task with a transcript never has its summary or history inline either", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { name: "History", segments: longTranscript(40) });
    await waitForStatus(app, user, id, "finished");
    const history = await json<{ type: string; data: Json }[]>(await app.request("GET", `/api/tasks/${id}/history`, { token: user.token }));
    expect(history.find((h) => h.type === "TaskCreated")?.data).toMatchObject({ segments: "40 segments" });
  });
});
