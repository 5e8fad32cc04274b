import { describe, expect, test } from "bun:test";
import { findSilences, frameLevels, frameMs, planChunks, speechSpans } from "../../src/transcription/chunking.ts";
import { qualityOf, stitch } from "../../src/transcription/stitching.ts";
import { segmentWords, sentenceCase } from "../../src/transcription/segmenting.ts";
import { normalizeForWer, wordErrorRate } from "../../src/transcription/wer.ts";
import { parseSphinxOutput } from "../../src/transcription/engines/sphinx.ts";
import { wordsOfAnswer } from "../../src/transcription/engines/openai.ts";
import { wordsOfPhrase, type RecognizedWord } from "../../src/transcription/engine.ts";
import { loadTranscriptionConfig } from "../../src/transcription/config.ts";
import { unfence } from "../../src/transcription/summary/openai.ts";
import { endpointUrl } from "../../src/transcription/openai-http.ts";
import { wavHeader } from "../../src/transcription/wav.ts";

const word = (text: string, start: number, end: number, confidence: number | null = 0.8): RecognizedWord => ({ text, start, end, confidence });

/** Levels for a timeline described as [ms, dB] pieces. */
function levels(...pieces: [number, number][]): Float32Array {
  const out: number[] = [];
  for (const [ms, db] of pieces) for (let i = 0; i < ms / frameMs; i++) out.push(db);
  return Float32Array.from(out);
}

describe("silences and chunks", () => {
  test("frame levels: digital silence is -120 dBFS, a full-scale square wave 0 dBFS", () => {
    const samples = new Int16Array(640);
    for (let i = 320; i < 640; i++) samples[i] = i % 2 ? 32767 : -32767;
    const [silent, loud] = frameLevels(samples);
    expect(silent).toBe(-120);
    expect(loud!).toBeGreaterThan(-0.01);
  });

  test("pauses are quiet runs relative to the recording; a silent recording is silent", () => {
    const analysis = findSilences(levels([1000, -20], [600, -70], [1000, -22], [200, -70], [1000, -20]));
    expect(analysis.silent).toBe(false);
    expect(analysis.silences).toEqual([{ start: 1000, end: 1600 }]); // the 200 ms dip is not a pause
    expect(findSilences(levels([60_000, -75])).silent).toBe(true);
    expect(findSilences(new Float32Array()).silent).toBe(true);
  });

  test("a quiet noisy recording: the threshold follows its noise floor", () => {
    const analysis = findSilences(levels([2000, -45], [1000, -20], [800, -45], [1000, -21], [2000, -45]));
    expect(analysis.silences.map((s) => [s.start, s.end])).toEqual([
      [0, 2000],
      [3000, 3800],
      [4800, 6800],
    ]);
  });

  test("speech spans are what lies between the pauses", () => {
    expect(
      speechSpans(10_000, [
        { start: 0, end: 1000 },
        { start: 4000, end: 5000 },
      ]),
    ).toEqual([
      { start: 1000, end: 4000 },
      { start: 5000, end: 10_000 },
    ]);
  });

  test("chunks join stretches up to the target, are cut only in pauses and never overlap", () => {
    // 10 s of speech, 1 s pause, repeated 6 times: 66 s.
    const pieces: [number, number][] = [];
    for (let i = 0; i < 6; i++) pieces.push([10_000, -20], [1000, -70]);
    const lv = levels(...pieces);
    const { silences } = findSilences(lv);
    const chunks = planChunks(66_000, silences, lv, { targetMs: 25_000, maxMs: 50_000 });
    expect(chunks.length).toBe(3);
    for (const chunk of chunks) expect(chunk.end - chunk.start).toBeLessThanOrEqual(25_000 + 1000);
    for (let i = 1; i < chunks.length; i++) {
      expect(chunks[i]!.start).toBeGreaterThanOrEqual(chunks[i - 1]!.end);
      // The cut lies inside a pause.
      expect(silences.some((s) => s.start <= chunks[i - 1]!.end && chunks[i]!.start <= s.end)).toBe(true);
    }
    expect(chunks[0]!.start).toBe(0);
  });

  test("long silences are skipped, clicks are left out, speech without a pause is cut at its quietest frame", () => {
    const lv = levels([2000, -20], [30_000, -80], [40, -20], [30_000, -80], [3000, -20]);
    const { silences } = findSilences(lv);
    const chunks = planChunks(65_040, silences, lv, { targetMs: 20_000, maxMs: 40_000 });
    expect(chunks).toEqual([
      { start: 0, end: 2500 },
      { start: 61_540, end: 65_040 },
    ]);
    const unbroken = levels([25_000, -20], [20, -30], [25_000, -20]);
    const cut = planChunks(50_020, [], unbroken, { targetMs: 20_000, maxMs: 40_000 });
    expect(cut).toEqual([
      { start: 0, end: 25_000 },
      { start: 25_000, end: 50_020 },
    ]);
  });
});

describe("stitching", () => {
  test("puts each chunk's words on the media's clock, in order, inside their chunk", () => {
    const words = stitch([
      { start: 30_000, end: 40_000, words: [word("third", 500, 900), word("over", 9800, 10_400)] },
      { start: 0, end: 30_000, words: [word("first", 100, 400), word("second", 29_000, 29_500)] },
    ]);
    expect(words.map((w) => [w.text, w.start, w.end])).toEqual([
      ["first", 100, 400],
      ["second", 29_000, 29_500],
      ["third", 30_500, 30_900],
      ["over", 39_800, 40_000],
    ]);
  });

  test("quality is the mean confidence on a 0-5 scale, null when the engine does not say", () => {
    expect(qualityOf([word("a", 0, 1, 1), word("b", 1, 2, 0.6)])).toBe(4);
    expect(qualityOf([word("a", 0, 1, null)])).toBeNull();
  });
});

describe("segments", () => {
  test("unpunctuated words: a new segment after a pause, sentence case, tokens as recognised", () => {
    const segments = segmentWords(
      [word("hello", 0, 400), word("i'm", 450, 600), word("here", 650, 900), word("next", 2000, 2400), word("one", 2450, 2800)],
      false,
    );
    const timed = (text: string, start: number, end: number) => ({ text, start, end, confidence: 0.8 });
    expect(segments).toEqual([
      {
        id: 1,
        start: 0,
        end: 900,
        text: "Hello I'm here.",
        speaker: null,
        tokens: ["hello", "i'm", "here"],
        words: [timed("hello", 0, 400), timed("i'm", 450, 600), timed("here", 650, 900)],
      },
      {
        id: 2,
        start: 2000,
        end: 2800,
        text: "Next one.",
        speaker: null,
        tokens: ["next", "one"],
        words: [timed("next", 2000, 2400), timed("one", 2450, 2800)],
      },
    ]);
  });

  test("punctuated words: a sentence ends a segment even without a pause", () => {
    const segments = segmentWords([word("Yes.", 0, 300), word("We", 350, 500), word("agree,", 550, 800), word("fully!", 850, 1200)], true);
    expect(segments.map((s) => s.text)).toEqual(["Yes.", "We agree, fully!"]);
  });

  test("a long run is split at its longest inner pause until every piece fits", () => {
    const words = Array.from({ length: 40 }, (_, i) => word(`w${i}`, i * 1000 + (i >= 20 ? 300 : 0), i * 1000 + 800 + (i >= 20 ? 300 : 0)));
    const segments = segmentWords(words, false, { maxSegmentMs: 25_000 });
    expect(segments.length).toBe(2);
    expect(segments[0]!.tokens!.length).toBe(20);
    expect(segments.every((s) => s.end - s.start <= 25_000)).toBe(true);
  });

  test("sentence case", () => {
    expect(sentenceCase(["i", "think", "i'll", "go"])).toBe("I think I'll go.");
  });
});

describe("word error rate", () => {
  test("counts substitutions, deletions and insertions against the reference", () => {
    const r = wordErrorRate("HE HOPED THERE WOULD BE STEW", "he hoped their would be a stew");
    expect(r).toMatchObject({ substitutions: 1, insertions: 1, deletions: 0, referenceWords: 6 });
    expect(r.wer).toBeCloseTo(2 / 6);
    expect(wordErrorRate("A B C", "").wer).toBe(1);
    expect(wordErrorRate("", "").wer).toBe(0);
    expect(normalizeForWer("Don’t stop, Jim.")).toEqual(["DON'T", "STOP", "JIM"]);
  });
});

describe("engine adapters (pure parts)", () => {
  test("PocketSphinx output: word times in ms, fillers dropped, alternate pronunciations folded", () => {
    const stdout = [
      "he hoped there",
      "<s> 0.440 0.530 0.999600",
      "he 0.540 0.650 0.566054",
      "<sil> 2.370 2.500 0.879137",
      "for(2) 1.840 1.990 0.346552",
      "[NOISE] 5.1 5.2 0.6",
      "</s> 10.130 10.430 1.000000",
    ].join("\n");
    expect(parseSphinxOutput(stdout)).toEqual([
      { text: "he", start: 540, end: 650, confidence: 0.566054 },
      { text: "for", start: 1840, end: 1990, confidence: 0.346552 },
    ]);
  });

  test("OpenAI verbose_json: segment punctuation with word times when they line up, shared time otherwise", () => {
    const recognition = wordsOfAnswer(
      {
        segments: [
          { start: 0, end: 1.2, text: " Hello, world.", avg_logprob: -0.1 },
          { start: 1.5, end: 3.5, text: " Second part here." },
        ],
        words: [
          { word: "Hello", start: 0.1, end: 0.5 },
          { word: "world", start: 0.6, end: 1.1 },
          { word: "Second", start: 1.5, end: 2.0 },
        ],
      },
      4000,
    );
    expect(recognition.punctuated).toBe(true);
    expect(recognition.words.slice(0, 2)).toEqual([
      { text: "Hello,", start: 100, end: 500, confidence: Math.exp(-0.1) },
      { text: "world.", start: 600, end: 1100, confidence: Math.exp(-0.1) },
    ]);
    expect(recognition.words.slice(2).map((w) => w.text)).toEqual(["Second", "part", "here."]);
    expect(recognition.words[2]!.start).toBe(1500);
    expect(recognition.words[4]!.end).toBe(3500);
    expect(wordsOfAnswer({ text: "Just text." }, 2000).words.map((w) => [w.text, w.start, w.end])).toEqual([
      ["Just", 0, 1000],
      ["text.", 1000, 2000],
    ]);
  });

  test("phrase time is shared by word length", () => {
    expect(wordsOfPhrase("a bbb", 0, 400, null).map((w) => [w.start, w.end])).toEqual([
      [0, 100],
      [100, 400],
    ]);
  });

  test("endpoint URLs and fenced answers", () => {
    expect(endpointUrl("http://h:1", "chat/completions")).toBe("http://h:1/v1/chat/completions");
    expect(endpointUrl("http://h:1/v1/", "audio/transcriptions")).toBe("http://h:1/v1/audio/transcriptions");
    expect(unfence("```markdown\n# T\n- a\n```")).toBe("# T\n- a");
  });

  test("a WAV header for 16 kHz mono 16-bit PCM", () => {
    const header = new DataView(wavHeader(32_000).buffer);
    expect(header.getUint32(24, true)).toBe(16_000);
    expect(header.getUint16(22, true)).toBe(1);
    expect(header.getUint32(40, true)).toBe(32_000);
  });
});

describe("configuration", () => {
  const fail = (message: string) => new Error(message);
  test("defaults to PocketSphinx and the extractive summariser", () => {
    const config = loadTranscriptionConfig({}, fail);
    expect(config.engine).toBe("sphinx");
    expect(config.sphinx.hmm).toBe("/usr/share/pocketsphinx/model/en-us/en-us");
    expect(config.summaryOpenai).toBeNull();
    expect(config.scribingDeadlineSeconds).toBe(7200);
  });
  test("whisper needs a model, openai an endpoint; bad values are refused", () => {
    expect(() => loadTranscriptionConfig({ TRANSCRIPTION_ENGINE: "whisper" }, fail)).toThrow(/WHISPER_MODEL/);
    expect(() => loadTranscriptionConfig({ TRANSCRIPTION_ENGINE: "openai" }, fail)).toThrow(/TRANSCRIPTION_OPENAI_URL/);
    expect(() => loadTranscriptionConfig({ TRANSCRIPTION_ENGINE: "vosk" }, fail)).toThrow(/TRANSCRIPTION_ENGINE/);
    expect(() => loadTranscriptionConfig({ CHUNK_SECONDS: "0" }, fail)).toThrow(/CHUNK_SECONDS/);
    const openai = loadTranscriptionConfig(
      { TRANSCRIPTION_ENGINE: "openai", TRANSCRIPTION_OPENAI_URL: "http://localhost:9/", TRANSCRIPTION_OPENAI_KEY: "k" },
      fail,
    );
    expect(openai.openai).toEqual({ url: "http://localhost:9", apiKey: "k", model: "whisper-1", language: null });
  });
});
