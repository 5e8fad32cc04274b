import type { Segment } from "../tasks/segments.ts";
import type { RecognizedWord } from "./engine.ts";

export type SegmentingOptions = {
  /** A pause at least this long ends a sentence-like segment. */
  pauseMs: number;
  /** A segment longer than this is split at its longest inner pause. */
  maxSegmentMs: number;
};

const defaults: SegmentingOptions = { pauseMs: 600, maxSegmentMs: 15_000 };

const endsSentence = (text: string) => /[.!?…。！？]["'”’)\]]*$/.test(text);
const endsClause = (text: string) => /[,;:，；：]["'”’)\]]*$/.test(text);

/** Splits a too-long run of words where the pause is longest (a clause end counts as a longer pause). */
function splitLong(words: RecognizedWord[], options: SegmentingOptions): RecognizedWord[][] {
  if (words.length < 2 || words[words.length - 1]!.end - words[0]!.start <= options.maxSegmentMs) return [words];
  let best = 1;
  let bestScore = -Infinity;
  for (let i = 1; i < words.length; i++) {
    const gap = words[i]!.start - words[i - 1]!.end;
    // Prefer cuts near the middle when pauses are alike, so pieces shrink fast.
    const balance = -Math.abs(i - words.length / 2) / words.length;
    const score = gap + (endsClause(words[i - 1]!.text) ? 300 : 0) + balance * 100;
    if (score > bestScore) [best, bestScore] = [i, score];
  }
  return [...splitLong(words.slice(0, best), options), ...splitLong(words.slice(best), options)];
}

/** PocketSphinx writes lower case without punctuation: a capital to start, "I" alone, a full stop to end. */
export function sentenceCase(words: string[]): string {
  const text = words.map((w) => (/^i('(m|ve|ll|d|s))?$/.test(w) ? w[0]!.toUpperCase() + w.slice(1) : w)).join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * Recognised words (media times) into spec 2.1 segments: a new segment after a pause or at the end
 * of a sentence, long ones split at their longest pause. `tokens` are the words as recognised.
 */
export function segmentWords(words: RecognizedWord[], punctuated: boolean, options: Partial<SegmentingOptions> = {}): Segment[] {
  const settings = { ...defaults, ...options };
  const groups: RecognizedWord[][] = [];
  let current: RecognizedWord[] = [];
  for (const word of words) {
    const previous = current[current.length - 1];
    if (previous && (word.start - previous.end >= settings.pauseMs || (punctuated && endsSentence(previous.text)))) {
      groups.push(current);
      current = [];
    }
    current.push(word);
  }
  if (current.length > 0) groups.push(current);
  return groups
    .flatMap((group) => splitLong(group, settings))
    .map((group, i) => {
      const tokens = group.map((w) => w.text);
      return {
        id: i + 1,
        start: group[0]!.start,
        end: Math.max(group[0]!.start, group[group.length - 1]!.end),
        text: punctuated ? tokens.join(" ") : sentenceCase(tokens),
        speaker: null,
        tokens,
        words: group.map(({ text, start, end, confidence }) => ({ text, start, end, confidence })),
      };
    });
}
