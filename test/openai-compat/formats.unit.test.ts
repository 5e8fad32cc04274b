import { describe, expect, test } from "bun:test";
import { compressionRatio, render, verboseJson, type Granularity, type TranscriptFacts } from "../../src/openai-compat/formats.ts";
import { verboseWords } from "../../src/openai-compat/verbose-words.ts";
import type { Segment, TranscriptWord } from "../../src/tasks/segments.ts";

const segment = (id: number, start: number, end: number, text: string, words?: TranscriptWord[]): Segment => ({
  id,
  start,
  end,
  text,
  speaker: null,
  tokens: null,
  ...(words ? { words } : {}),
});
const facts = (segments: Segment[], granularities: Granularity[] = ["word", "segment"]): TranscriptFacts => ({
  segments,
  durationSeconds: 11.0005,
  chargedSeconds: 12,
  language: "english",
  granularities,
});

describe("word times", () => {
  test("the engine's own timed words where the segment kept them, in seconds, without punctuation", () => {
    const kept = segment(1, 1000, 3000, "Ask not, what!", [
      { text: "Ask", start: 1000, end: 1400, confidence: 0.9 },
      { text: "not,", start: 1450, end: 1700, confidence: null },
      { text: "what!", start: 2100, end: 2999.6, confidence: 0.4 },
    ]);
    expect(verboseWords(kept)).toEqual([
      { word: "Ask", start: 1, end: 1.4 },
      { word: "not", start: 1.45, end: 1.7 },
      { word: "what", start: 2.1, end: 3 },
    ]);
  });

  test("without timed words (supplied or edited), each word gets its letters' share of the span: the edges exact, in order", () => {
    expect(verboseWords(segment(1, 1000, 3000, "Ask not, what!"))).toEqual([
      { word: "Ask", start: 1, end: 1.6 },
      { word: "not", start: 1.6, end: 2.2 },
      { word: "what", start: 2.2, end: 3 },
    ]);
    expect(verboseWords(segment(1, 1000, 3000, "Ask not", []))).toEqual([
      { word: "Ask", start: 1, end: 2 },
      { word: "not", start: 2, end: 3 },
    ]);
  });

  test("punctuation alone is no word, a zero-length span gives words at one time, apostrophes stay", () => {
    expect(verboseWords(segment(1, 0, 1000, " - . "))).toEqual([]);
    expect(verboseWords(segment(1, 500, 500, "one don't"))).toEqual([
      { word: "one", start: 0.5, end: 0.5 },
      { word: "don't", start: 0.5, end: 0.5 },
    ]);
  });

  test("a token of 100,000 marks around a letter is trimmed at once (no backtracking over the run)", () => {
    const token = `${"-".repeat(50_000)}a${"-".repeat(49_999)}b${"!".repeat(50_000)}`;
    const started = performance.now();
    expect(verboseWords(segment(1, 0, 1000, token)).map((w) => w.word)).toEqual([`a${"-".repeat(49_999)}b`]);
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe("verbose_json", () => {
  const segments = [segment(1, 0, 1500, "And so my fellow Americans."), segment(2, 1500, 1500, "  "), segment(3, 2000, 4250, "Ask not.")];

  test("OpenAI's fields, times in seconds, empty segments left out, words only when asked", () => {
    const answer = verboseJson(facts(segments));
    expect(answer).toMatchObject({
      task: "transcribe",
      language: "english",
      duration: 11.001,
      text: "And so my fellow Americans. Ask not.",
      usage: { type: "duration", seconds: 12 },
    });
    expect(answer.segments!.map((s) => [s.id, s.seek, s.start, s.end, s.text])).toEqual([
      [0, 0, 0, 1.5, "And so my fellow Americans."],
      [1, 200, 2, 4.25, "Ask not."],
    ]);
    expect(answer.segments![0]).toMatchObject({ tokens: [], temperature: 0, avg_logprob: 0, no_speech_prob: 0 });
    expect(answer.words!.map((w) => w.word)).toEqual(["And", "so", "my", "fellow", "Americans", "Ask", "not"]);
    expect(verboseJson(facts(segments, [])).words).toBeUndefined();
    expect(verboseJson(facts(segments, ["segment"])).words).toBeUndefined();
  });

  test("granularities as OpenAI answers them: segments by default, words alone with `word` alone, both with both", () => {
    const keys = (granularities: Granularity[]) => Object.keys(verboseJson(facts(segments, granularities))).filter((k) => k === "segments" || k === "words");
    expect(keys([])).toEqual(["segments"]);
    expect(keys(["segment"])).toEqual(["segments"]);
    expect(keys(["word"])).toEqual(["words"]);
    expect(keys(["word", "segment"])).toEqual(["segments", "words"]);
  });

  test("compression ratio is Whisper's: repetitive text compresses more", () => {
    expect(compressionRatio("la ".repeat(200))).toBeGreaterThan(10);
    expect(compressionRatio("Ask not what your country can do for you.")).toBeLessThan(2);
    expect(compressionRatio("")).toBe(0);
  });
});

describe("the other formats", () => {
  const segments = [segment(1, 0, 1500, "Hello there."), segment(2, 61_000, 62_500, "General <Kenobi>.")];

  test("json and text are the whole text", () => {
    expect(JSON.parse(render("json", facts(segments)).body)).toEqual({ text: "Hello there. General <Kenobi>.", usage: { type: "duration", seconds: 12 } });
    expect(render("text", facts(segments))).toEqual({ body: "Hello there. General <Kenobi>.\n", contentType: "text/plain; charset=utf-8" });
  });

  test("srt and vtt are the exports' renderers", () => {
    expect(render("srt", facts(segments)).body).toBe(
      "1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:01:01,000 --> 00:01:02,500\nGeneral <\u200bKenobi>.\n\n",
    );
    expect(render("vtt", facts(segments)).body).toBe(
      "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\nHello there.\n\n2\n00:01:01.000 --> 00:01:02.500\nGeneral &lt;Kenobi&gt;.\n\n",
    );
  });
});
