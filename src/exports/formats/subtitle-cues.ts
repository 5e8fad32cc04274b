import { cueBreakingPauseMs, defaultCueLimits, maxCharactersPerSecond, minCueMs, type CueLimits } from "./cue-limits.ts";
import { layOutLines } from "./cue-lines.ts";
import { displayWidth, speechRuns, type SpeechRun, type TimedWord } from "./timed-words.ts";
import type { ExportSegment } from "./text.ts";

/**
 * A subtitle cue: times in media ms, its lines (never empty), the speaker, and the words it shows (pieces of a
 * long word `glued` to the one before). `label` is the speaker's label when the first line starts with it.
 */
export type Cue = { start: number; end: number; speaker: string | null; label: string | null; lines: string[]; words: TimedWord[] };

/**
 * What a subtitle format lets its caller choose: the limits (the defaults when absent) and the media's length in ms,
 * past which no cue is kept up (default: the end of the last segment).
 */
export type SubtitleOptions = { limits?: CueLimits; mediaEndMs?: number };

export type ShapeOptions = SubtitleOptions & {
  /** The text that names a speaker at the start of their turn (srt's `Ann:`), or null where the format says it otherwise. */
  label?: (speaker: string) => string | null;
};

/** Where a cue may end: the next cue's first word (or what follows the run), its longest time and the media's end. */
type Bounds = { limits: CueLimits; runEnd: number };

/** A cue's reading cost, to keep cues few, full, readable and ending at a sentence or clause. */
function cueCost(words: readonly TimedWord[], j: number, i: number, chars: number, pauses: number, cut: number, { limits, runEnd }: Bounds): number {
  const next = i < words.length ? words[i]!.start : runEnd;
  const time = Math.min(limits.maxCueSeconds * 1000, next - words[j]!.start);
  const capacity = limits.maxLines * limits.maxLineLength;
  const emptiness = (capacity - chars) / capacity;
  // Characters over what the reading speed allows in the time the cue can stay up: splitting a fast run evenly cannot
  // lower their total, so they are counted per character and never merely moved from one cue to two.
  const tooFast = Math.max(0, chars - (Math.max(0, time) * maxCharactersPerSecond) / 1000);
  const tooShort = time < minCueMs ? (minCueMs - Math.max(0, time)) / minCueMs : 0;
  return 1 + emptiness * emptiness + 0.5 * tooFast + 2 * tooShort + pauses / 1000 + cut;
}

const codes = (chars: string) => new Set(Array.from(chars, (c) => c.codePointAt(0)!));
const sentenceEnds = codes(".?!…。？！");
const clauseEnds = codes(",;:—–，、；：");
const closings = codes("\"'”’»)]");

/** A cue ending at a sentence's end costs nothing, at a clause's little, inside a word most. (No regex: this runs once a word.) */
function breakCost(words: readonly TimedWord[], i: number): number {
  if (i >= words.length) return 0;
  if (words[i]!.glued) return 5;
  const last = words[i - 1]!.text;
  let end = last.length - 1;
  while (end > 0 && closings.has(last.charCodeAt(end))) end--;
  const code = last.charCodeAt(end);
  if (sentenceEnds.has(code)) return 0;
  return clauseEnds.has(code) ? 0.4 : 1;
}

/**
 * The run's words cut into cues at the cheapest places (dynamic programming over where each cue starts). A cue fits
 * in `maxLines` lines and lasts at most `maxCueSeconds` from its first word's start to its last word's end, unless it
 * is one word. Counted back from a cue's last word, lines only grow and time only lengthens, so each word is weighed
 * only against the starts that still fit: at most a cue's worth of words.
 */
function cutRun(run: SpeechRun, labelWidth: number, bounds: Bounds): number[] {
  const { words } = run;
  const { maxLineLength, maxLines, maxCueSeconds } = bounds.limits;
  const best = new Float64Array(words.length + 1).fill(Number.POSITIVE_INFINITY);
  const from = new Int32Array(words.length + 1);
  best[0] = 0;
  for (let i = 1; i <= words.length; i++) {
    // Lines filled from the cue's last word back: the fewest lines these words can take.
    let lines = 1;
    let top = words[i - 1]!.width;
    let chars = top;
    let pauses = 0;
    const cut = breakCost(words, i);
    for (let j = i - 1; j >= 0; j--) {
      if (j < i - 1) {
        const join = words[j + 1]!.glued ? 0 : 1;
        const width = words[j]!.width;
        if (top + join + width <= maxLineLength) top += join + width;
        else lines++, (top = width);
        chars += join + width;
        pauses += Math.max(0, words[j + 1]!.start - words[j]!.end - 500);
      }
      const withLabel = j === 0 && labelWidth > 0 && top + 1 + labelWidth > maxLineLength ? lines + 1 : lines;
      const fits = withLabel <= maxLines && words[i - 1]!.end - words[j]!.start <= maxCueSeconds * 1000;
      if (!fits && j < i - 1) break;
      const cost = best[j]! + cueCost(words, j, i, chars, pauses, cut, bounds);
      if (cost < best[i]!) (best[i] = cost), (from[i] = j);
    }
  }
  const starts: number[] = [];
  for (let i = words.length; i > 0; i = from[i]!) starts.unshift(from[i]!);
  return starts;
}

const shownWidth = (words: readonly TimedWord[]) => words.reduce((sum, w, k) => sum + w.width + (k > 0 && !w.glued ? 1 : 0), 0);

/**
 * Segments as subtitle cues shaped for reading: at most `maxLines` lines of at most `maxLineLength` characters (a
 * speaker's label wider than a line stands alone on its own), a new cue at every change of speaker and after a long
 * pause, each cue up from its first word until its last word ends, longer (into the silence after it, never past the
 * next cue, `maxCueSeconds` or the media's end) to last a second and to be read at 17 characters a second. Words keep
 * their order and none is lost or repeated; cues follow each other without overlapping.
 */
export function shapeCues(segments: readonly ExportSegment[], options: ShapeOptions = {}): Cue[] {
  const limits = options.limits ?? defaultCueLimits;
  const mediaEnd = segments.reduce((end, s) => Math.max(end, s.start, s.end), options.mediaEndMs ?? 0);
  const runs = speechRuns(segments, limits.maxLineLength, cueBreakingPauseMs);
  const cues: Cue[] = [];
  let previousEnd = 0;
  runs.forEach((run, r) => {
    const label = run.turnStart && run.speaker !== null ? (options.label?.(run.speaker) ?? null) : null;
    const runEnd = Math.max(run.words.at(-1)!.end, runs[r + 1]?.words[0]?.start ?? mediaEnd);
    const starts = cutRun(run, label ? displayWidth(label) : 0, { limits, runEnd });
    starts.forEach((j, k) => {
      const i = starts[k + 1] ?? run.words.length;
      const words = run.words.slice(j, i);
      const start = Math.max(words[0]!.start, previousEnd);
      const chars = shownWidth(words);
      const wanted = Math.max(words.at(-1)!.end, start + minCueMs, start + Math.ceil((chars * 1000) / maxCharactersPerSecond));
      const next = i < run.words.length ? run.words[i]!.start : runEnd;
      const end = Math.max(start, Math.min(wanted, next, start + limits.maxCueSeconds * 1000, mediaEnd));
      // A label that leaves the words too few lines (one word too wide to share one with it) gives way.
      const labelled = k === 0 && label !== null ? layOutLines(words, label, limits) : null;
      const lines = labelled ?? layOutLines(words, null, limits)!;
      cues.push({ start, end, speaker: run.speaker, label: labelled ? label : null, lines, words });
      previousEnd = end;
    });
  });
  return cues;
}
