import { maxCharactersPerSecond, minCueMs, type CueLimits } from "./cue-limits.ts";
import type { TimedWord } from "./timed-words.ts";

/**
 * Words to cut into cues: the label's width when the first cue starts a turn with one (0 otherwise), and `ended`
 * when the run ends with these words (else more follow), `after` then being when what follows the run starts.
 */
export type CutInput = { words: readonly TimedWord[]; labelWidth: number; limits: CueLimits; ended: boolean; after: number };

/**
 * Starts weighed for each cue's end: all of them up to this many, else the fullest half of these, the same number of
 * starts after a sentence's or clause's end or a pause, and the one-word cue. Normal speech at the default limits
 * never has more (84 characters hold at most 42 words), so the cut is the best one; only words of a letter or two,
 * or the widest limits, are cut from this sample, which keeps the work a constant per word (with the limits at their
 * widest, a cue can hold 500 words, and weighing each start made a hostile transcript quadratic).
 */
const weighedStarts = 32;

const codes = (chars: string) => new Set(Array.from(chars, (c) => c.codePointAt(0)!));
const sentenceEnds = codes(".?!…。？！");
const clauseEnds = codes(",;:—–，、；：");
const closings = codes("\"'”’»)]");

/** A cue ending before word `i` at a sentence's end costs nothing, at a clause's little, inside a word most. (No regex: this runs once a word.) */
function breakCost(words: readonly TimedWord[], i: number, ended: boolean): number {
  if (i >= words.length) return ended ? 0 : 1;
  if (words[i]!.glued) return 5;
  const last = words[i - 1]!.text;
  let end = last.length - 1;
  while (end > 0 && closings.has(last.charCodeAt(end))) end--;
  const code = last.charCodeAt(end);
  if (sentenceEnds.has(code)) return 0;
  return clauseEnds.has(code) ? 0.4 : 1;
}

/** Sums and jumps over the words, so that a cue's characters, pauses and lines cost a few steps whatever its length. */
function prepare({ words, labelWidth, limits, ended }: CutInput) {
  const n = words.length;
  const chars = new Float64Array(n + 1); // chars[m]: words before m as shown, with their spaces
  const pauses = new Float64Array(n + 1); // pauses[m]: pause (over half a second) before each word 1..m-1
  const cuts = new Float64Array(n + 1); // cuts[i]: the cost of a cue ending before word i
  const nextGood = new Int32Array(n + 1); // the first start at or after k that follows a sentence, clause or pause
  const lineEnd = new Int32Array(n); // the end of a line filled from word k
  const joins = new Uint8Array(n); // 1 where a space comes before word k
  const starts = new Float64Array(n);
  for (let k = 0; k < n; k++) (joins[k] = k > 0 && !words[k]!.glued ? 1 : 0), (starts[k] = words[k]!.start);
  const join = (k: number) => joins[k]!;
  for (let m = 1; m <= n; m++) {
    chars[m] = chars[m - 1]! + words[m - 1]!.width + join(m - 1);
    pauses[m] = pauses[m - 1]! + (m >= 2 ? Math.max(0, words[m - 1]!.start - words[m - 2]!.end - 500) : 0);
  }
  for (let i = 1; i <= n; i++) cuts[i] = breakCost(words, i, ended);
  nextGood[n] = n;
  for (let k = n - 1; k >= 0; k--) {
    const good = k > 0 && (cuts[k]! < 1 || (!words[k]!.glued && words[k]!.start - words[k - 1]!.end >= 500));
    nextGood[k] = good ? k : nextGood[k + 1]!;
  }
  const width = (from: number, to: number) => chars[to]! - chars[from]! - join(from);
  for (let k = 0, e = 1; k < n; k++) {
    e = Math.max(e, k + 1);
    while (e < n && width(k, e + 1) <= limits.maxLineLength) e++;
    lineEnd[k] = e;
  }
  // The label's line: the label, then the words that fit beside it (none when the first does not).
  let labelLineEnd = 0;
  while (labelLineEnd < n && labelWidth + 1 + width(0, labelLineEnd + 1) <= limits.maxLineLength) labelLineEnd++;
  return { chars, joins, starts, pauses, cuts, nextGood, lineEnd, labelLineEnd };
}

/**
 * The words cut into cues at the cheapest places (dynamic programming over where each cue starts); the starts of the
 * cues. A cue fits in `maxLines` lines (with the label, for the first) and lasts at most `maxCueSeconds` from its
 * first word's start to its last word's end, unless it is one word. Cost: cues few, full, readable, not across a
 * pause, ending at a sentence or clause. The fewest lines are counted by filling lines from the cue's first word,
 * a jump a line, so a fit is checked in at most `maxLines` steps, and the fullest start only moves forward.
 */
export function cutWords(input: CutInput): number[] {
  const { words, labelWidth, limits, ended, after } = input;
  const n = words.length;
  const { chars, joins, starts, pauses, cuts, nextGood, lineEnd, labelLineEnd } = prepare(input);
  const maxMs = limits.maxCueSeconds * 1000;
  const capacity = limits.maxLines * limits.maxLineLength;
  const fits = (j: number, i: number) => {
    let lines = 1;
    let at = j === 0 && labelWidth > 0 ? labelLineEnd : lineEnd[j]!;
    while (at < i && lines <= limits.maxLines) (at = lineEnd[at]!), lines++;
    return lines <= limits.maxLines && words[i - 1]!.end - words[j]!.start <= maxMs;
  };
  const best = new Float64Array(n + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Int32Array(n + 1);
  best[0] = 0;
  let fullest = 0;
  let i = 0;
  let next = 0;
  let cut = 0;
  /** The best cost of words before `i` with a cue from `j`. */
  const weigh = (j: number) => {
    const shown = chars[i]! - chars[j]! - joins[j]!;
    const time = Math.min(maxMs, next - starts[j]!);
    const emptiness = (capacity - shown) / capacity;
    // Characters over what the reading speed allows in the time the cue can stay up: splitting a fast run evenly
    // cannot lower their total, so they are counted per character and never merely moved from one cue to two.
    const tooFast = Math.max(0, shown - (Math.max(0, time) * maxCharactersPerSecond) / 1000);
    const tooShort = time < minCueMs ? (minCueMs - Math.max(0, time)) / minCueMs : 0;
    const cost = best[j]! + 1 + emptiness * emptiness + 0.5 * tooFast + 2 * tooShort + (pauses[i]! - pauses[j + 1]!) / 1000 + cut;
    if (cost < best[i]!) (best[i] = cost), (from[i] = j);
  };
  for (i = 1; i <= n; i++) {
    while (fullest < i - 1 && !fits(fullest, i)) fullest++;
    next = i < n ? words[i]!.start : ended ? after : words[n - 1]!.end;
    cut = cuts[i]!;
    if (i - fullest <= weighedStarts) {
      for (let j = i - 1; j >= fullest; j--) weigh(j);
      continue;
    }
    weigh(i - 1);
    for (let j = nextGood[fullest]!, count = 0; j < i - 1 && count < weighedStarts / 2; j = nextGood[j + 1]!, count++) weigh(j);
    for (let j = fullest + weighedStarts / 2 - 1; j >= fullest; j--) weigh(j);
  }
  const cues: number[] = [];
  for (let end = n; end > 0; end = from[end]!) cues.push(from[end]!);
  return cues.reverse();
}
