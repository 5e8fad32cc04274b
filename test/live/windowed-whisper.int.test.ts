/**
 * The windowed path end to end with the real whisper engine (@fugood/whisper.node) on the generated model
 * (test/support/ggml-whisper-model.ts: random weights, made-up words): partials and a final come back, timed inside
 * the turn, and the session's folder under the temp root is gone after close. Nothing here is about accuracy.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WindowedStreamingEngine } from "../../src/live/engines/windowed-engine.ts";
import type { WindowedRecognizer } from "../../src/live/engines/windowed-recognizer.ts";
import { WhisperEngine } from "../../src/transcription/engines/whisper.ts";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-windowed-whisper-"));
const tempRoot = join(dir, "tmp");
let whisper: WhisperEngine;

beforeAll(() => {
  const model = join(dir, "ggml-tiny-random.bin");
  writeTinyWhisperModel(model);
  mkdirSync(tempRoot);
  whisper = new WhisperEngine({ model, accelerator: "none", language: null, threads: 2 });
});
afterAll(async () => {
  await whisper.close();
  rmSync(dir, { recursive: true, force: true });
});

/** `seconds` of a warbling tone with some noise, as 16 kHz samples: something for the encoder to chew on. */
function sound(seconds: number): Int16Array {
  const samples = new Int16Array(seconds * 16_000);
  for (let i = 0; i < samples.length; i++) {
    const t = i / 16_000;
    samples[i] = Math.round(6_000 * Math.sin(2 * Math.PI * (220 + 80 * Math.sin(3 * t)) * t) + 800 * (Math.random() - 0.5));
  }
  return samples;
}

test("whisper through the window: partials while audio arrives, a final of the whole turn, nothing left on disk", async () => {
  const live = new WindowedStreamingEngine("whisper", whisper, tempRoot, { windowMs: 2_000 });
  const recognizer = (await live.open({ language: "en", vocabulary: ["Scribe"] })) as WindowedRecognizer;
  const folders = readdirSync(tempRoot);
  expect(folders).toEqual([expect.stringMatching(new RegExp(`^scribe-task-${process.pid}-0-live-`))]);
  const audio = sound(4);
  const partials: string[] = [];
  for (let at = 0; at < audio.length; at += 320 * 50) {
    for (let chunk = at; chunk < Math.min(audio.length, at + 320 * 50); chunk += 320) recognizer.push(audio.subarray(chunk, chunk + 320));
    partials.push(await recognizer.partial());
  }
  expect(partials.some((text) => text.trim() !== "")).toBe(true);
  const final = await recognizer.finish();
  expect(final.punctuated).toBe(true);
  expect(final.words.length).toBeGreaterThan(0);
  expect(final.text).toBe(final.words.map((word) => word.text).join(" "));
  for (const word of final.words) {
    expect(word.start).toBeGreaterThanOrEqual(0);
    expect(word.end).toBeGreaterThanOrEqual(word.start);
    expect(word.end).toBeLessThanOrEqual(4_000);
  }
  expect(readdirSync(join(tempRoot, folders[0]!))).toEqual([]);
  recognizer.close();
  await recognizer.closed;
  expect(existsSync(join(tempRoot, folders[0]!))).toBe(false);
}, 30_000);
