import { describe, expect, test } from "bun:test";
import { maxVocabularyEntries } from "../../src/tasks/recognition-choice.ts";
import { maxVocabularyWords, maxWordLength, vocabularyWords } from "../../src/transcription/engines/sphinx-vocabulary-words.ts";

describe("the words of a vocabulary, as PocketSphinx spells them", () => {
  test("phrases are split into words, lower case, each once in order of first appearance", () => {
    expect(vocabularyWords(["Zorbalind", "Quexley contract", "ZORBALIND", "  quexley  ", "Contract"])).toEqual(["zorbalind", "quexley", "contract"]);
  });

  test("inner apostrophes and hyphens stay, curly apostrophes become straight, edges and other punctuation go", () => {
    expect(vocabularyWords(["O’Brien", "Jean-Luc", "'quoted'", "--dash--", "Dr. Smith, Jr.!", "a/b"])).toEqual([
      "o'brien",
      "jean-luc",
      "quoted",
      "dash",
      "dr",
      "smith",
      "jr",
      "a",
      "b",
    ]);
  });

  test("Latin letters with accents are kept; other scripts get no pronunciation", () => {
    const words = vocabularyWords(["Zoë", "São Paulo", "Москва", "東京", "Αθήνα", "مرحبا", "Zorba東京", "naïve"]);
    expect(words).toEqual(["zoë", "são", "paulo", "naïve"]);
  });

  test("digits ride along with letters, numbers alone are left out (espeak-ng would say them as several words)", () => {
    expect(vocabularyWords(["MP3", "42", "R2D2", "3.14"])).toEqual(["mp3", "r2d2"]);
  });

  test("names the decoder gives a meaning to are only letters once cleaned", () => {
    const words = vocabularyWords(["<s>", "</s>", "<sil>", "[NOISE]", "++BREATH++", "__proto__", "constructor", "word(2)"]);
    expect(words).toEqual(["s", "sil", "noise", "breath", "proto", "constructor", "word"]);
  });

  test("very long words, control characters, emoji and empty entries are dropped, never an error", () => {
    const long = "x".repeat(maxWordLength + 1);
    expect(vocabularyWords([long, "", "   ", "\u0000\u0007", "🙂", "tab\tsep", "line\nbreak", "\uFFFD", `${"y".repeat(maxWordLength)}`])).toEqual([
      "tab",
      "sep",
      "line",
      "break",
      "y".repeat(maxWordLength),
    ]);
  });

  test("what is not a string is ignored (a caller that did not validate)", () => {
    expect(vocabularyWords([null, 42, { toString: () => "evil" }, ["nested"], "kept"] as unknown[])).toEqual(["kept"]);
  });

  test("at most 100 entries and 300 words are taken", () => {
    expect(vocabularyWords(Array.from({ length: maxVocabularyEntries + 50 }, (_, i) => `word${i}x`))).toHaveLength(maxVocabularyEntries);
    const phrases = Array.from({ length: 100 }, (_, i) => `alpha${i}a beta${i}b gamma${i}c delta${i}d`);
    expect(vocabularyWords(phrases)).toHaveLength(maxVocabularyWords);
  });

  test("a huge entry costs one pass, not a hang", () => {
    const started = performance.now();
    expect(vocabularyWords(["ab ".repeat(200_000)])).toEqual(["ab"]);
    expect(performance.now() - started).toBeLessThan(2000);
  });
});
