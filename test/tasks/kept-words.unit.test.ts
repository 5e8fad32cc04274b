import { describe, expect, test } from "bun:test";
import { withKeptWords } from "../../src/tasks/kept-words.ts";
import type { Segment } from "../../src/tasks/segments.ts";

const words = [{ text: "hello", start: 10, end: 400, confidence: 0.8 }];
const stored: Segment[] = [
  { id: 1, start: 0, end: 500, text: "Hello.", speaker: null, tokens: null, words },
  { id: 2, start: 500, end: 900, text: "World.", speaker: null, tokens: null, words: [{ text: "world", start: 520, end: 880, confidence: null }] },
];
const sent = (changes: Partial<Segment>[]): Segment[] => stored.map(({ words: _w, ...segment }, i) => ({ ...segment, ...changes[i] }));

describe("a PATCH's segments keep the words of those sent back unchanged", () => {
  test("same id, times and text keep them; a speaker change too", () => {
    const kept = withKeptWords(sent([{ speaker: "Ann" }, {}]), stored);
    expect(kept.map((s) => s.words)).toEqual([words, stored[1]!.words]);
  });

  test("changed text, start, end or id lose them", () => {
    for (const change of [{ text: "Hello!" }, { start: 1 }, { end: 499 }, { id: 3 }]) {
      expect(withKeptWords(sent([change, {}]), stored)[0]!.words).toBeUndefined();
    }
  });

  test("a stored transcript without words leaves what was sent as it is", () => {
    const plain = sent([{}, {}]);
    expect(withKeptWords(plain, plain)).toBe(plain);
  });
});
