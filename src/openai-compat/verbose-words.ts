/**
 * `verbose_json`'s `words` (OpenAI's TranscriptionWord: the word, its start and end in seconds) from a stored
 * transcript: the engine's own timed words where the segment kept them (src/tasks/segments.ts), else each word of
 * the segment's text placed by its share of the segment's span (`wordsOfPhrase`, as the engines that time only
 * phrases do): exact at the segment's edges, an estimate inside. A segment edited since recognition has no timed
 * words left, so its new text is placed by share.
 */
import type { Segment } from "../tasks/segments.ts";
import { wordsOfPhrase } from "../transcription/engine.ts";

export type VerboseWord = { word: string; start: number; end: number };

/** OpenAI writes times in seconds; ours are whole milliseconds. */
export const seconds = (ms: number) => Math.round(ms) / 1000;
const letterOrDigit = /[\p{L}\p{N}]/u;

/**
 * The word without the punctuation around it ("country." → "country"; "don't" keeps its apostrophe), as OpenAI
 * gives words. Trimmed by index: a `[^\p{L}]+$` pattern backtracks over every run of marks in a long token.
 */
function bare(token: string): string {
  const chars = [...token];
  let from = 0;
  let to = chars.length;
  while (from < to && !letterOrDigit.test(chars[from]!)) from++;
  while (to > from && !letterOrDigit.test(chars[to - 1]!)) to--;
  return chars.slice(from, to).join("");
}

/** One segment's words, in order, times in seconds; punctuation alone is no word. */
export function verboseWords(segment: Segment): VerboseWord[] {
  const timed =
    segment.words && segment.words.length > 0
      ? segment.words
      : wordsOfPhrase(segment.text, segment.start, Math.max(segment.start, segment.end), null).map(({ text, start, end }) => ({ text, start, end }));
  return timed.flatMap(({ text, start, end }) => {
    const word = bare(text);
    return word === "" ? [] : [{ word, start: seconds(start), end: seconds(Math.max(start, end)) }];
  });
}
