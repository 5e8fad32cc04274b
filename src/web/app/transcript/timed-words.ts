import type { Segment, Word } from "./segments.ts";

/**
 * Below this confidence a recognised word is marked for review: under a half, the engine's own posterior says the word
 * is more likely wrong than right. A word without a confidence (whisper, OpenAI) is never marked: nothing says it is
 * doubtful.
 */
export const lowConfidence = 0.5;

export const isLowConfidence = (word: Word) => word.confidence !== null && word.confidence < lowConfidence;

export const percent = (confidence: number) => `${Math.round(confidence * 100)}%`;

/**
 * What each word shows: the segment's own text, word by word, when it has as many words as the engine timed (the
 * pipeline writes PocketSphinx's words in sentence case with a full stop, which its words lack); the engine's words
 * otherwise.
 */
export function shownTexts(text: string, words: readonly Word[]): string[] {
  const parts = text.split(/\s+/).filter(Boolean);
  return parts.length === words.length ? parts : words.map((word) => word.text);
}

/** How many words of the transcript are marked for review. */
export function uncertainWords(segments: readonly Segment[]): number {
  let count = 0;
  for (const segment of segments) for (const word of segment.words ?? []) if (isLowConfidence(word)) count++;
  return count;
}
