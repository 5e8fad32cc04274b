import { describe, expect, test } from "bun:test";
import { wordsOfSegments } from "../../src/transcription/engines/whisper-words.ts";
import { whisperModelLanguages } from "../../src/transcription/engines/whisper-model-file.ts";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("whisper's token segments to words", () => {
  test("a token with a leading space starts a word; one without (rest of a word, punctuation) continues it", () => {
    const words = wordsOfSegments(
      [
        { text: " Trans", t0: 100, t1: 300 },
        { text: "cription", t0: 300, t1: 600 },
        { text: ",", t0: 600, t1: 620 },
        { text: " done", t0: 700, t1: 900 },
        { text: ".", t0: 900, t1: 950 },
      ],
      " Transcription, done.",
      2000,
    );
    expect(words).toEqual([
      { text: "Transcription,", start: 100, end: 620, confidence: null },
      { text: "done.", start: 700, end: 950, confidence: null },
    ]);
  });

  test("times are kept inside the chunk and in order (whisper times past the end of short audio)", () => {
    const words = wordsOfSegments(
      [
        { text: " one", t0: -20, t1: 400 },
        { text: " two", t0: 300, t1: 250 },
        { text: " three", t0: 2900, t1: 9660 },
      ],
      "",
      3000,
    );
    expect(words.map((w) => [w.start, w.end])).toEqual([
      [0, 400],
      [300, 300],
      [2900, 3000],
    ]);
  });

  test("a segment of several words (no token times) shares its time among them", () => {
    const words = wordsOfSegments([{ text: " ask not what", t0: 0, t1: 1100 }], " ask not what", 5000);
    expect(words.map((w) => w.text)).toEqual(["ask", "not", "what"]);
    expect(words[0]!.start).toBe(0);
    expect(words[2]!.end).toBe(1100);
    expect(words[1]!.start).toBeGreaterThan(0);
  });

  test("tokens that split a character (U+FFFD in their text): the whole text, shared over its time", () => {
    const words = wordsOfSegments(
      [
        { text: " \uFFFD", t0: 0, t1: 200 },
        { text: "\uFFFD", t0: 200, t1: 400 },
        { text: " 世界", t0: 400, t1: 800 },
      ],
      " 你好 世界",
      1000,
    );
    expect(words.map((w) => w.text)).toEqual(["你好", "世界"]);
    expect(words.at(-1)!.end).toBe(800);
  });

  test("no segments, no words", () => {
    expect(wordsOfSegments([], "", 1000)).toEqual([]);
  });
});

describe("a model file's languages, from its header", () => {
  const dir = mkdtempSync(join(tmpdir(), "scribe-whisper-header-"));
  const model = (vocabulary: number) => {
    const path = join(dir, `m${vocabulary}.bin`);
    writeFileSync(path, new Uint8Array(new Int32Array([0x67676d6c, vocabulary, 1500]).buffer));
    return path;
  };

  test("English-only (51,864 tokens), 99 languages (51,865), 100 with Cantonese (large-v3, 51,866)", async () => {
    expect(await whisperModelLanguages(model(51_864))).toEqual(["en"]);
    const multilingual = await whisperModelLanguages(model(51_865));
    expect(multilingual).toHaveLength(99);
    expect(multilingual).toContain("de");
    expect(multilingual).not.toContain("yue");
    expect(await whisperModelLanguages(model(51_866))).toContain("yue");
  });

  test("a file that is not a ggml model, or none: null (loading it says why)", async () => {
    const text = join(dir, "text.bin");
    writeFileSync(text, "not a model at all");
    expect(await whisperModelLanguages(text)).toBeNull();
    expect(await whisperModelLanguages(join(dir, "absent.bin"))).toBeNull();
  });
});
