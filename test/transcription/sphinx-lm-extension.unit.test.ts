import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { extendTrieLanguageModel, LanguageModelFormatError, readTrieLanguageModel } from "../../src/transcription/engines/sphinx-lm-extension.ts";

const logBase = Math.log10(1.0001);
const bits = (max: number) => (max === 0 ? 0 : Math.floor(Math.log2(max)) + 1);

/** A bigram trie model as sphinxbase writes it: its packed bigrams are random bytes (only their size matters here). */
function trieModel(words: string[], bigrams: number): Uint8Array {
  const header = new TextEncoder().encode("Trie Language Model");
  const quant = 4 + 65536 * 4;
  const unigrams = (words.length + 1) * 12;
  const packed = Math.floor(((1 + bigrams) * (bits(words.length) + 16) + 7) / 8) + 8;
  const strings = new TextEncoder().encode(words.map((w) => `${w}\0`).join(""));
  const bytes = new Uint8Array(header.length + 1 + 8 + quant + unigrams + packed + 4 + strings.length);
  const view = new DataView(bytes.buffer);
  bytes.set(header);
  let at = header.length;
  bytes[at++] = 2;
  view.setUint32(at, words.length, true);
  view.setUint32(at + 4, bigrams, true);
  at += 8 + quant;
  words.forEach((_, i) => {
    view.setFloat32(at + i * 12, (-2 - i) / logBase, true);
    view.setFloat32(at + i * 12 + 4, -0.5 / logBase, true);
    view.setUint32(at + i * 12 + 8, i, true);
  });
  view.setUint32(at + words.length * 12 + 8, bigrams, true); // the sentinel: where the bigrams end
  at += unigrams;
  for (let i = 0; i < packed; i++) bytes[at + i] = (i * 131 + 7) & 0xff;
  at += packed;
  view.setInt32(at, strings.length, true);
  bytes.set(strings, at + 4);
  return bytes;
}

const unigram = (bytes: Uint8Array, id: number) => {
  const { unigramsAt } = readTrieLanguageModel(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset);
  const at = unigramsAt + id * 12;
  return { log10: view.getFloat32(at, true) * logBase, backoff: view.getFloat32(at + 4, true), next: view.getUint32(at + 8, true) };
};

describe("adding words to a trie language model", () => {
  const words = ["</s>", "<s>", "call", "contract", "tomorrow"];
  const model = trieModel(words, 9);

  test("reads the layout back", () => {
    const read = readTrieLanguageModel(model);
    expect(read.order).toBe(2);
    expect(read.counts).toEqual([5, 9]);
    expect(read.words).toEqual(words);
  });

  test("new words are appended as unigrams without bigrams, at their boost, and the packed n-grams are unchanged", () => {
    const extended = extendTrieLanguageModel(model, [
      { word: "zorbalind", log10Probability: -4 },
      { word: "quexley", log10Probability: -4.5 },
      { word: "zorbalind", log10Probability: -4 },
    ]);
    const read = readTrieLanguageModel(extended);
    expect(read.counts).toEqual([7, 9]);
    expect(read.words).toEqual([...words, "zorbalind", "quexley"]);
    expect(unigram(extended, 5).log10).toBeCloseTo(-4, 3);
    expect(unigram(extended, 6).log10).toBeCloseTo(-4.5, 3);
    expect(unigram(extended, 5)).toMatchObject({ backoff: 0, next: 9 });
    expect(unigram(extended, 7).next).toBe(9); // the sentinel, moved after them
    const before = readTrieLanguageModel(model);
    const packedBefore = model.subarray(before.unigramsAt + 6 * 12, before.wordsAt - 4);
    expect(extended.subarray(read.unigramsAt + 8 * 12, read.wordsAt - 4)).toEqual(packedBefore);
  });

  test("a word already there is raised to its boost, never lowered", () => {
    const extended = extendTrieLanguageModel(model, [
      { word: "tomorrow", log10Probability: -3 }, // was -6
      { word: "<s>", log10Probability: -5 }, // was -3: kept
    ]);
    expect(readTrieLanguageModel(extended).words).toEqual(words);
    expect(unigram(extended, 4).log10).toBeCloseTo(-3, 3);
    expect(unigram(extended, 1).log10).toBeCloseTo(-3, 3);
    expect(unigram(extended, 4).backoff).toBeCloseTo(-0.5 / logBase, 0);
  });

  test("words in UTF-8 round-trip", () => {
    expect(readTrieLanguageModel(extendTrieLanguageModel(model, [{ word: "zoë", log10Probability: -4 }])).words.at(-1)).toBe("zoë");
  });

  test("refuses what would change the width of the packed word ids, and what is not this format", () => {
    const four = trieModel(["a", "b", "c", "d"], 2); // ids take 3 bits up to 7 words
    expect(() =>
      extendTrieLanguageModel(
        four,
        ["e", "f", "g"].map((word) => ({ word, log10Probability: -4 })),
      ),
    ).not.toThrow();
    expect(() =>
      extendTrieLanguageModel(
        four,
        ["e", "f", "g", "h"].map((word) => ({ word, log10Probability: -4 })),
      ),
    ).toThrow(LanguageModelFormatError);
    expect(() => readTrieLanguageModel(new TextEncoder().encode("\\data\\\nngram 1=3\n".padEnd(100)))).toThrow(LanguageModelFormatError);
    expect(() => readTrieLanguageModel(model.subarray(0, model.length - 1))).toThrow(LanguageModelFormatError);
    expect(() => readTrieLanguageModel(model.subarray(0, 40))).toThrow(LanguageModelFormatError);
  });

  const enUs = "/usr/share/pocketsphinx/model/en-us/en-us.lm.bin";
  test.skipIf(!existsSync(enUs))("the en-us model PocketSphinx ships reads, and extends with its n-grams untouched", () => {
    const bytes = new Uint8Array(readFileSync(enUs));
    const read = readTrieLanguageModel(bytes);
    expect(read.counts[0]).toBe(read.words.length);
    expect(read.words).not.toContain("zorbalind");
    const extended = extendTrieLanguageModel(bytes, [{ word: "zorbalind", log10Probability: -4 }]);
    const again = readTrieLanguageModel(extended);
    expect(again.words.at(-1)).toBe("zorbalind");
    expect(extended.length).toBe(bytes.length + 12 + "zorbalind".length + 1);
  });
});
