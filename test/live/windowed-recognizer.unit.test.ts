/**
 * The windowed recognizer over a batch engine double (windowed-fake-engine.ts): which audio each recognition gets,
 * one recognition at a time, the final over the whole turn, clear, close, temporary files, word times.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RecognitionError } from "../../src/transcription/engine.ts";
import { WindowedRecognizer, type WindowOptions } from "../../src/live/engines/windowed-recognizer.ts";
import { until } from "../support/eventually.ts";
import { blocks, blockText, FakeBatchEngine } from "./windowed-fake-engine.ts";

const root = mkdtempSync(join(tmpdir(), "scribe-windowed-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let folders = 0;
function recognizer(options: Partial<WindowOptions> = {}, streaming = { language: "de", vocabulary: ["Scribe"] }) {
  const engine = new FakeBatchEngine();
  const dir = mkdtempSync(join(root, `r${++folders}-`));
  const live = new WindowedRecognizer(engine, dir, streaming, { windowMs: 1_000, maxTurnMs: 60_000, ...options });
  return { engine, dir, live };
}

describe("partials", () => {
  test("recognise the last window of the turn with the session's language and vocabulary, and nothing when nothing was pushed", async () => {
    const { engine, live } = recognizer();
    expect(await live.partial()).toBe("");
    expect(engine.calls).toHaveLength(0);
    live.push(blocks(0, 5));
    expect(await live.partial()).toBe(blockText(0, 5)); // shorter than the window: all of it
    live.push(blocks(5, 20));
    live.push(blocks(25, 5));
    expect(await live.partial()).toBe(blockText(20, 10)); // the last second of 3 s, across the pushes
    expect(engine.calls.map((c) => c.samples.length)).toEqual([8_000, 16_000]);
    expect(engine.calls[1]!.options).toMatchObject({ language: "de", vocabulary: ["Scribe"], durationMs: 1_000 });
  });

  test("never overlap: a partial asked while one runs gets its answer, nothing new means the last answer, no queue", async () => {
    const { engine, live } = recognizer();
    engine.answerAtOnce = false;
    live.push(blocks(0, 3));
    const first = live.partial();
    await until("the first recognition", () => engine.calls.length === 1, 2_000, 1);
    live.push(blocks(3, 2));
    const asked = [live.partial(), live.partial(), live.partial()];
    await Bun.sleep(5);
    expect(engine.calls).toHaveLength(1);
    engine.calls[0]!.answer();
    expect(new Set(await Promise.all([first, ...asked]))).toEqual(new Set([blockText(0, 3)]));
    // the blocks pushed meanwhile are recognised by the next partial; once recognised, asking again costs nothing
    const next = live.partial();
    await until("the second recognition", () => engine.calls.length === 2, 2_000, 1);
    engine.calls[1]!.answer();
    expect(await next).toBe(blockText(0, 5));
    expect(await live.partial()).toBe(blockText(0, 5));
    expect(engine.calls).toHaveLength(2);
    expect(engine.mostAtOnce).toBe(1);
  });

  test("a failing engine rejects the partial with its error, and the recognizer goes on", async () => {
    const { engine, live } = recognizer();
    engine.answerAtOnce = false;
    live.push(blocks(0, 2));
    const failing = live.partial();
    await until("the recognition", () => engine.calls.length === 1, 2_000, 1);
    engine.calls[0]!.fail(new RecognitionError("whisper broke"));
    await expect(failing).rejects.toThrow("whisper broke");
    engine.answerAtOnce = true;
    expect(await live.partial()).toBe(blockText(0, 2));
  });
});

describe("the final", () => {
  test("recognises the whole turn once, and the next turn starts empty", async () => {
    const { engine, live } = recognizer();
    live.push(blocks(0, 30));
    expect(await live.partial()).toBe(blockText(20, 10));
    const result = await live.finish();
    expect(result.text).toBe(blockText(0, 30));
    expect(result.punctuated).toBe(true);
    expect(result.words.at(-1)).toEqual({ text: "b29", start: 2_900, end: 3_000, confidence: 0.5 });
    expect(engine.calls.at(-1)!.samples.length).toBe(48_000);
    expect(engine.calls.at(-1)!.options).toMatchObject({ language: "de", vocabulary: ["Scribe"], durationMs: 3_000 });
    expect(await live.partial()).toBe("");
    live.push(blocks(0, 2));
    expect((await live.finish()).text).toBe(blockText(0, 2));
    expect(await live.finish()).toEqual({ text: "", words: [], punctuated: false });
  });

  test("a partial that covered the whole turn is the final, recognised once", async () => {
    const { engine, live } = recognizer();
    live.push(blocks(0, 6));
    expect(await live.partial()).toBe(blockText(0, 6));
    expect((await live.finish()).text).toBe(blockText(0, 6));
    expect(engine.calls).toHaveLength(1);
    // the same while that partial still runs: the final waits for its answer
    engine.answerAtOnce = false;
    live.push(blocks(0, 4));
    const partial = live.partial();
    await until("the partial", () => engine.calls.length === 2, 2_000, 1);
    const final = live.finish();
    engine.calls[1]!.answer();
    expect((await final).text).toBe(blockText(0, 4));
    expect(await partial).toBe(blockText(0, 4));
    expect(engine.calls).toHaveLength(2);
  });

  test("finishing aborts a partial of older audio, whose askers get the last text; then the whole turn is recognised", async () => {
    const { engine, live } = recognizer({ windowMs: 300 });
    live.push(blocks(0, 3));
    expect(await live.partial()).toBe(blockText(0, 3));
    engine.answerAtOnce = false;
    live.push(blocks(3, 3));
    const partial = live.partial();
    await until("the partial", () => engine.calls.length === 2, 2_000, 1);
    live.push(blocks(6, 1));
    const final = live.finish();
    expect(await partial).toBe(blockText(0, 3));
    expect(engine.calls[1]!.options.signal?.aborted).toBe(true);
    await until("the final", () => engine.calls.length === 3, 2_000, 1);
    expect(engine.running).toBe(1);
    engine.calls[2]!.answer();
    expect((await final).text).toBe(blockText(0, 7));
    expect(engine.mostAtOnce).toBe(1);
  });

  test("a final waits for an aborted partial that the engine goes on with", async () => {
    const { engine, live } = recognizer();
    engine.answerAtOnce = false;
    engine.honoursAbort = false;
    live.push(blocks(0, 3));
    const partial = live.partial();
    await until("the partial", () => engine.calls.length === 1, 2_000, 1);
    live.push(blocks(3, 3));
    const final = live.finish();
    await Bun.sleep(10);
    expect(engine.calls).toHaveLength(1);
    engine.calls[0]!.answer();
    expect(await partial).toBe(blockText(0, 3));
    await until("the final", () => engine.calls.length === 2, 2_000, 1);
    engine.calls[1]!.answer();
    expect((await final).text).toBe(blockText(0, 6));
    expect(engine.mostAtOnce).toBe(1);
  });

  test("past the bound the oldest audio goes: the final covers the last part, its word times still from the turn's start", async () => {
    const { engine, live } = recognizer({ maxTurnMs: 1_000 });
    live.push(blocks(0, 25));
    live.push(blocks(25, 5));
    live.push(blocks(30, 40)); // one push longer than the bound
    live.push(blocks(70, 3));
    const result = await live.finish();
    expect(engine.calls[0]!.samples.length).toBe(16_000);
    expect(result.text).toBe(blockText(63, 10));
    expect(result.words[0]).toEqual({ text: "b63", start: 6_300, end: 6_400, confidence: 0.5 });
    expect(result.words.at(-1)).toMatchObject({ start: 7_200, end: 7_300 });
  });
});

describe("clear and close", () => {
  test("clear drops the turn's audio and hypothesis; a partial running for it answers empty", async () => {
    const { engine, live } = recognizer();
    live.push(blocks(0, 4));
    expect(await live.partial()).toBe(blockText(0, 4));
    engine.answerAtOnce = false;
    live.push(blocks(4, 4));
    const partial = live.partial();
    await until("the partial", () => engine.calls.length === 2, 2_000, 1);
    live.clear();
    expect(await partial).toBe("");
    expect(await live.partial()).toBe("");
    engine.answerAtOnce = true;
    live.push(blocks(50, 2));
    expect((await live.finish()).text).toBe(blockText(50, 2));
  });

  test("close rejects what is pending and what comes after, aborts the engine and removes the folder", async () => {
    const { engine, live, dir } = recognizer();
    engine.answerAtOnce = false;
    engine.honoursAbort = false; // pending calls reject even when the engine goes on
    live.push(blocks(0, 4));
    const partial = live.partial();
    await until("the partial", () => engine.calls.length === 1, 2_000, 1);
    live.push(blocks(4, 4));
    const final = live.finish();
    const outcomes = Promise.all([partial, final].map((pending) => pending.then(String, (error: Error) => error.message)));
    live.close();
    expect(await outcomes).toEqual(["The live recognizer is closed", "The live recognizer is closed"]);
    await expect(live.partial()).rejects.toBeInstanceOf(RecognitionError);
    await expect(live.finish()).rejects.toBeInstanceOf(RecognitionError);
    live.push(blocks(0, 1)); // ignored
    live.clear();
    expect(engine.calls[0]!.options.signal?.aborted).toBe(true);
    engine.calls[0]!.answer();
    await live.closed;
    expect(existsSync(dir)).toBe(false);
    expect(engine.calls).toHaveLength(1); // the final never started
  });

  test("each recognition's WAV is there while the engine reads it and gone after, answered or failed", async () => {
    const { engine, live, dir } = recognizer();
    live.push(blocks(0, 3));
    await live.partial();
    engine.answerAtOnce = false;
    live.push(blocks(3, 3));
    const failing = live.partial().catch((error: Error) => error.message);
    await until("the partial", () => engine.calls.length === 2, 2_000, 1);
    engine.calls[1]!.fail(new RecognitionError("no"));
    expect(await failing).toBe("no");
    engine.answerAtOnce = true;
    await live.finish();
    expect(engine.calls.every((call) => call.fileThere && call.path.startsWith(dir))).toBe(true);
    expect(new Set(engine.calls.map((call) => call.path)).size).toBe(3);
    expect(readdirSync(dir)).toEqual([]);
  });
});
