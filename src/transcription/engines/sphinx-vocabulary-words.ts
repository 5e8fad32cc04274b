import { maxVocabularyEntries } from "../../tasks/recognition-choice.ts";

/**
 * The words of a task's vocabulary as PocketSphinx's dictionary and language model spell them: lower case, Latin
 * letters (accents allowed), digits, inner apostrophes and hyphens. Pure. Whatever else a user typed is left out
 * quietly, never an error: a vocabulary only helps, it must not fail a task.
 */

/** Longer tokens are not names but noise (a pasted hash, a URL): espeak-ng would spell them out letter by letter. */
export const maxWordLength = 40;
/** Each entry may be a phrase: at most this many words are taken from all entries together. */
export const maxVocabularyWords = 300;

/** A token's characters: any letter or digit, apostrophes and hyphens; anything else separates tokens. */
const tokenPattern = /[\p{L}\p{M}\p{N}'-]+/gu;
/** A word PocketSphinx can be taught: Latin script only (espeak-ng's en-us voice spells other scripts out by letter names). */
const latinWord = /^[\p{Script=Latin}\p{M}\p{N}'-]+$/u;

/**
 * The distinct words of the vocabulary, in order of first appearance: phrases are split into their words (each word
 * is boosted on its own; the language model has no room for new word pairs), duplicates and case variants kept once.
 */
export function vocabularyWords(vocabulary: readonly unknown[]): string[] {
  const words = new Set<string>();
  // A task's vocabulary holds at most maxVocabularyEntries entries; more (a caller that did not check) are ignored.
  for (const entry of vocabulary.slice(0, maxVocabularyEntries)) {
    if (typeof entry !== "string") continue;
    const text = entry.normalize("NFC").replace(/[’‘ʼ]/g, "'").toLowerCase();
    for (const match of text.matchAll(tokenPattern)) {
      const word = match[0].replace(/^['-]+|['-]+$/g, "");
      if (word.length === 0 || word.length > maxWordLength) continue;
      if (!latinWord.test(word) || !/\p{L}/u.test(word)) continue;
      words.add(word);
      if (words.size >= maxVocabularyWords) return [...words];
    }
  }
  return [...words];
}
