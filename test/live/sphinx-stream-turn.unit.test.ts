// The live PocketSphinx engine's pure parts: reading the library's hypotheses and segments into words, and a turn's
// decoding cut into utterances where the decoder's own voice-activity detection hears speech stop (as
// pocketsphinx_continuous cuts a file), on a fake decoder.
import { describe, expect, test } from "bun:test";
import { decoderBlockSamples, SphinxTurnDecoding, type UtteranceDecoder } from "../../src/live/engines/sphinx-turn.ts";
import { hypothesisWords, wordsOfSegments, type DecodedSegment } from "../../src/live/engines/sphinx-words.ts";

describe("what the library answers, as words", () => {
  test("a hypothesis loses its fillers and alternative pronunciations' numbers", () => {
    expect(hypothesisWords("<s> stuff it <sil> into(2) [NOISE] ++UH++ his  belly </s>")).toEqual(["stuff", "it", "into", "his", "belly"]);
    expect(hypothesisWords("")).toEqual([]);
  });

  test("segments become timed words in ms (10 ms frames), fillers left out, confidence clamped, unknown posterior null", () => {
    const segments: DecodedSegment[] = [
      { word: "<s>", startFrame: 0, endFrame: 13, posterior: 1 },
      { word: "stuff", startFrame: 33, endFrame: 75, posterior: 0.72 },
      { word: "[SPEECH]", startFrame: 76, endFrame: 80, posterior: 0.6 },
      { word: "for(2)", startFrame: 81, endFrame: 90, posterior: 1.0000001 },
      { word: "them", startFrame: 91, endFrame: 99, posterior: Number.NaN },
      { word: "</s>", startFrame: 100, endFrame: 120, posterior: 1 },
    ];
    expect(wordsOfSegments(segments)).toEqual([
      { text: "stuff", start: 330, end: 750, confidence: 0.72 },
      { text: "for", start: 810, end: 900, confidence: 1 },
      { text: "them", start: 910, end: 990, confidence: null },
    ]);
  });
});

/**
 * A decoder that hears a word in each block whose first sample is positive (`w<value>`), silence in a block of zeros,
 * and counts 10 ms frames (160 samples) from the stream's start.
 */
class FakeDecoder implements UtteranceDecoder {
  calls: string[] = [];
  blockSizes: number[] = [];
  private frame = 0;
  private utterance: DecodedSegment[] = [];
  private speech = false;
  startStream() {
    this.calls.push("stream");
    this.frame = 0;
  }
  startUtterance() {
    this.calls.push("start");
    this.utterance = [];
  }
  process(samples: Int16Array) {
    this.blockSizes.push(samples.length);
    const frames = samples.length / 160;
    this.speech = samples[0]! > 0;
    if (this.speech) this.utterance.push({ word: `w${samples[0]}`, startFrame: this.frame, endFrame: this.frame + frames - 1, posterior: 0.5 });
    this.frame += frames;
  }
  inSpeech() {
    return this.speech;
  }
  hypothesis() {
    return this.utterance.map((s) => s.word).join(" ");
  }
  endUtterance() {
    this.calls.push("end");
  }
  segments() {
    return [{ word: "<s>", startFrame: 0, endFrame: 0, posterior: 1 }, ...this.utterance];
  }
  free() {}
}

const block = (value: number) => new Int16Array(decoderBlockSamples).fill(value);
const joined = (...blocks: Int16Array[]) => {
  const all = new Int16Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blocks) all.set(b, (at += b.length) - b.length);
  return all;
};

describe("a turn's decoding", () => {
  test("audio is decoded in pocketsphinx_continuous's blocks, a stream and an utterance started at the turn's first sample", () => {
    const decoder = new FakeDecoder();
    const turn = new SphinxTurnDecoding(decoder);
    expect(turn.partial()).toBe("");
    turn.process(joined(block(1), block(2), new Int16Array(100).fill(2)));
    expect(decoder.blockSizes).toEqual([2048, 2048, 100]);
    expect(decoder.calls).toEqual(["stream", "start"]);
    expect(turn.partial()).toBe("w1 w2 w2");
  });

  test("speech that stops ends an utterance and starts the next; partials and the final hold every utterance's words, timed from the turn", () => {
    const decoder = new FakeDecoder();
    const turn = new SphinxTurnDecoding(decoder);
    turn.process(joined(block(0), block(1), block(2), block(0)));
    expect(decoder.calls).toEqual(["stream", "start", "end", "start"]);
    turn.process(block(3));
    expect(turn.partial()).toBe("w1 w2 w3");
    const result = turn.finish();
    expect(result.text).toBe("w1 w2 w3");
    expect(result.punctuated).toBe(false);
    // 2048 samples are 128 ms: the turn's second block starts at 128 ms, its third at 256 ms, its fifth at 512 ms.
    expect(result.words.map((w) => [w.text, w.start])).toEqual([
      ["w1", 128],
      ["w2", 256],
      ["w3", 512],
    ]);
    expect(decoder.calls.at(-1)).toBe("end");
  });

  test("an utterance in which no speech was heard gives no words", () => {
    const decoder = new FakeDecoder();
    const turn = new SphinxTurnDecoding(decoder);
    turn.process(joined(block(0), block(0)));
    expect(turn.finish()).toEqual({ text: "", words: [], punctuated: false });
  });

  test("after finish the next audio is a new turn (a new stream), and finish without audio is empty", () => {
    const decoder = new FakeDecoder();
    const turn = new SphinxTurnDecoding(decoder);
    turn.process(block(1));
    expect(turn.finish().text).toBe("w1");
    expect(turn.finish()).toEqual({ text: "", words: [], punctuated: false });
    expect(turn.partial()).toBe("");
    turn.process(block(5));
    expect(decoder.calls.filter((c) => c === "stream")).toHaveLength(2);
    const second = turn.finish();
    expect(second.text).toBe("w5");
    expect(second.words[0]!.start).toBe(0);
  });

  test("clear drops the turn's words, ended utterances' too", () => {
    const decoder = new FakeDecoder();
    const turn = new SphinxTurnDecoding(decoder);
    turn.process(joined(block(1), block(0), block(2)));
    turn.clear();
    expect(turn.partial()).toBe("");
    turn.process(block(7));
    expect(turn.finish().text).toBe("w7");
  });
});
