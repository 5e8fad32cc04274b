/** The transcript page's timed words, pure parts: what is marked for review, what each word shows, what an edit drops. */
import { describe, expect, test } from "bun:test";
import { replaceAll } from "../../src/web/app/transcript/find-replace.ts";
import { withSpeakerRenamed, withText, type Segment, type Word } from "../../src/web/app/transcript/segments.ts";
import { isLowConfidence, lowConfidence, shownTexts, uncertainWords } from "../../src/web/app/transcript/timed-words.ts";

const word = (text: string, confidence: number | null): Word => ({ text, start: 0, end: 100, confidence });
const words = [word("ask", 0.9), word("not", 0.2), word("what", null), word("your", 0.5)];
const timed: Segment = { id: 1, start: 0, end: 1000, text: "Ask not what your.", speaker: "A", tokens: null, words };
const plain: Segment = { id: 2, start: 1000, end: 2000, text: "Plain text.", speaker: "B", tokens: null };

describe("timed words on the page", () => {
  test("a word below the threshold is low; one at it, or without a confidence, is not", () => {
    expect(lowConfidence).toBe(0.5);
    expect(words.map(isLowConfidence)).toEqual([false, true, false, false]);
    expect(uncertainWords([timed, plain, { ...timed, id: 3 }])).toBe(2);
  });

  test("each word shows the segment's own text when the counts agree, the engine's word otherwise", () => {
    expect(shownTexts(timed.text, words)).toEqual(["Ask", "not", "what", "your."]);
    expect(shownTexts("Ask not.", words)).toEqual(["ask", "not", "what", "your"]);
  });

  test("an edit of a segment's text drops its words, and only its; a speaker's new name keeps them", () => {
    const edited = withText([timed, plain], 1, "Ask now.");
    expect(edited[0]!.words).toBeUndefined();
    expect(withText([timed, plain], 2, "Other.")[0]!.words).toBe(words);
    expect(replaceAll([timed, plain], "not", "now", { matchCase: false })[0]!.words).toBeUndefined();
    expect(replaceAll([timed, plain], "plain", "clear", { matchCase: false })[0]).toBe(timed);
    expect(withSpeakerRenamed([timed], "A", "Ann")[0]!.words).toBe(words);
  });
});
