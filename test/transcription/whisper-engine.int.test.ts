/**
 * The whisper engine for real, on a model the test writes itself (test/support/ggml-whisper-model.ts: whisper.cpp's
 * ggml format, tiny random weights): @fugood/whisper.node loads it, transcribes, times words, is cancelled mid-way.
 * The random model says made-up words, so nothing here is about accuracy. Set WHISPER_TEST_MODEL to a real ggml
 * model file to also check a recognition.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { WhisperEngine } from "../../src/transcription/engines/whisper.ts";
import { RecognitionError, wordsOfPhrase, type RecognizedWord } from "../../src/transcription/engine.ts";
import { writeWavSlice } from "../../src/transcription/wav.ts";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";
import { ffmpeg, librispeechDir, spoken } from "../support/media-fixtures.ts";
import { knownSkip } from "../support/prerequisites.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-whisper-"));
const model = join(dir, "ggml-tiny-random.bin");
let engine: WhisperEngine;

/** A 16 kHz mono WAV of `seconds` (espeak-ng speech, repeated and cut to length), and its length in ms. */
async function clip(name: string, seconds: number): Promise<{ wav: string; durationMs: number }> {
  const pcm = join(dir, `${name}.pcm`);
  const speech = await spoken("He could wait no longer. The engine is proven, not accurate.");
  await ffmpeg("-stream_loop", "-1", "-i", speech, "-t", String(seconds), "-ac", "1", "-ar", "16000", "-f", "s16le", pcm);
  const durationMs = Math.floor(statSync(pcm).size / 32);
  await writeWavSlice(pcm, 0, durationMs, join(dir, `${name}.wav`));
  return { wav: join(dir, `${name}.wav`), durationMs };
}

function expectTimedInOrder(words: RecognizedWord[], durationMs: number): void {
  let previousStart = 0;
  for (const word of words) {
    expect(word.text.trim()).not.toBe("");
    expect(word.start).toBeGreaterThanOrEqual(previousStart);
    expect(word.end).toBeGreaterThanOrEqual(word.start);
    expect(word.end).toBeLessThanOrEqual(durationMs);
    previousStart = word.start;
  }
}

beforeAll(() => {
  writeTinyWhisperModel(model);
  engine = new WhisperEngine({ model, accelerator: "none", language: null, threads: 2 });
});
afterAll(async () => {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("whisper engine (@fugood/whisper.node) on a generated model", () => {
  test("transcribes a spoken clip: words in order, each with its own times inside the clip", async () => {
    const { wav, durationMs } = await clip("speech", 4);
    const result = await engine.recognize(wav, { durationMs });
    expect(result.punctuated).toBe(true);
    expect(result.words.length).toBeGreaterThan(1);
    expectTimedInOrder(result.words, durationMs);
    // whisper's token times, not shares of a phrase's time (what the words would get without them)
    const shares = wordsOfPhrase(result.words.map((w) => w.text).join(" "), result.words[0]!.start, result.words.at(-1)!.end, null);
    expect(result.words.map((w) => [w.start, w.end])).not.toEqual(shares.map((w) => [w.start, w.end]));
    expect(result.words.every((w) => w.confidence === null)).toBe(true);
  });

  test("the task's language and vocabulary are passed on; a language whisper does not know is a RecognitionError", async () => {
    const { wav, durationMs } = await clip("short", 2);
    const text = async (options: { language?: string; vocabulary?: string[] }) => {
      const { words } = await engine.recognize(wav, { durationMs, ...options });
      expectTimedInOrder(words, durationMs);
      return words.map((w) => w.text).join(" ");
    };
    // the prompt reaches the decoder: this model's words follow their position, and a prompt moves them
    expect(await text({ language: "fr", vocabulary: ["Scribe", "Kubernetes", "Nguyễn"] })).not.toBe(await text({ language: "fr" }));
    const error = await engine.recognize(wav, { durationMs, language: "xx" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecognitionError);
    expect((error as Error).message).toContain('whisper does not know the language "xx"');
    // the engine still works after a refused language
    expectTimedInOrder((await engine.recognize(wav, { durationMs, language: "auto" })).words, durationMs);
  });

  test("an English-only model: English when no language is asked, another language a RecognitionError that says so", async () => {
    const englishModel = writeTinyWhisperModel(join(dir, "ggml-tiny-random.en.bin"), { englishOnly: true });
    const english = new WhisperEngine({ model: englishModel, accelerator: "none", language: null, threads: 2 });
    try {
      const { wav, durationMs } = await clip("english", 2);
      expectTimedInOrder((await english.recognize(wav, { durationMs })).words, durationMs);
      const error = await english.recognize(wav, { durationMs, language: "de" }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RecognitionError);
      expect((error as Error).message).toBe(`The whisper model ${englishModel} knows English only, not "de"`);
    } finally {
      await english.close();
    }
  });

  test("cancelled mid-way: rejects promptly with the signal's reason, and the next recognition works", async () => {
    const long = await clip("long", 60);
    const started = performance.now();
    await engine.recognize(long.wav, { durationMs: long.durationMs });
    const uncancelledMs = performance.now() - started;

    const controller = new AbortController();
    const reason = new Error("task deleted");
    const recognition = engine.recognize(long.wav, { durationMs: long.durationMs, signal: controller.signal });
    await Bun.sleep(Math.min(100, uncancelledMs / 4));
    const abortedAt = performance.now();
    controller.abort(reason);
    expect(await recognition.catch((e: unknown) => e)).toBe(reason);
    expect(performance.now() - abortedAt).toBeLessThan(Math.max(50, uncancelledMs / 4));

    const { wav, durationMs } = await clip("after", 2);
    expectTimedInOrder((await engine.recognize(wav, { durationMs })).words, durationMs);
  });

  test("a signal aborted before the start rejects without transcribing", async () => {
    const { wav, durationMs } = await clip("never", 2);
    const reason = new Error("gone");
    await expect(engine.recognize(wav, { durationMs, signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  test("a file that is not a whole model is a RecognitionError with whisper.cpp's reason", async () => {
    const broken = join(dir, "broken.bin");
    await Bun.write(broken, await Bun.file(model).slice(0, 2_000_000).arrayBuffer()); // Bun.write of a slice writes the whole file (Bun 1.4.5)
    const error = await new WhisperEngine({ model: broken, accelerator: "none", language: null, threads: 1 })
      .recognize(join(dir, "never.wav"), { durationMs: 1000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecognitionError);
    expect((error as Error).message).toStartWith(`The whisper model ${broken} could not be loaded: `);
    expect((error as Error).message).toContain("not all tensors loaded");
  });

  test("a missing model is a RecognitionError naming it", async () => {
    const engine = new WhisperEngine({ model: "/nonexistent/ggml-base.en.bin", accelerator: "none", language: "en", threads: 1 });
    const error = await engine.recognize("/nonexistent.wav", { durationMs: 1000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RecognitionError);
    expect((error as Error).message).toStartWith("The whisper model /nonexistent/ggml-base.en.bin could not be loaded");
  });

  const realModel = process.env.WHISPER_TEST_MODEL;
  test.skipIf(!realModel)("with WHISPER_TEST_MODEL: recognises a LibriSpeech clip", async () => {
    const pcm = join(dir, "librispeech.pcm");
    await ffmpeg("-i", join(librispeechDir, "1089-134691-0000.flac"), "-ac", "1", "-ar", "16000", "-f", "s16le", pcm);
    await writeWavSlice(pcm, 0, 10_000, join(dir, "librispeech.wav"));
    const real = new WhisperEngine({ model: realModel!, accelerator: (process.env.WHISPER_GPU as "none") ?? "none", language: "en", threads: 2 });
    const result = await real.recognize(join(dir, "librispeech.wav"), { durationMs: 10_000 });
    expect(
      result.words
        .map((w) => w.text)
        .join(" ")
        .toLowerCase(),
    ).toContain("wait no longer");
    await real.close();
  });
});
if (!process.env.WHISPER_TEST_MODEL) knownSkip("whisper recognition of real speech — set WHISPER_TEST_MODEL to a ggml model file to run it");
