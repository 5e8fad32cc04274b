import { cueBreakingPauseMs, defaultCueLimits, maxCharactersPerSecond, minCueMs, type CueLimits } from "./cue-limits.ts";
import { cutWords } from "./cue-cuts.ts";
import { layOutLines } from "./cue-lines.ts";
import { displayWidth, speechParts, splitWord, truncated, type TimedWord } from "./timed-words.ts";
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
  /**
   * The text that names a speaker at the start of their turn (srt's `Ann:`), in at most `maxWidth` characters (a label
   * wider is cut to fit, with an ellipsis), or null where the format says it otherwise.
   */
  label?: (speaker: string, maxWidth: number) => string | null;
};

/** A run's words not yet made cues, and its label while its first cue is still to come. */
type OpenRun = { speaker: string | null; label: string | null; words: TimedWord[] };

/** Where the cues are: the limits, the media's end, and the end of the last cue made. */
type Shaping = { limits: CueLimits; mediaEnd: number; previousEnd: number };

/**
 * A long run of one speaker is made into cues as it comes, not at its end: once this many of its words are held, they
 * are cut, and the cues are sent but for those among the last words kept back, which are cut again with what follows
 * (two cues' worth at least: a word, or a piece of one, is a character at least, so a cue holds at most a line's
 * characters times its lines in words). Each word is thus cut about once, and the wait for a cue stays short.
 */
const heldWords = (limits: CueLimits) => 4096 + 4 * limits.maxLines * limits.maxLineLength;
const keptWords = (limits: CueLimits) => 2 * limits.maxLines * limits.maxLineLength;

const shownWidth = (words: readonly TimedWord[]) => words.reduce((sum, w, k) => sum + w.width + (k > 0 && !w.glued ? 1 : 0), 0);

/**
 * The run's words made into cues: all of them when it has `ended` (what follows it starting at `after`), else those
 * of the cues that end before the words kept back. The words made into cues leave the run.
 */
function cuesOfRun(run: OpenRun, shaping: Shaping, ended: boolean, after: number): Cue[] {
  const { limits, mediaEnd } = shaping;
  const runEnd = ended ? Math.max(run.words.at(-1)!.end, after) : run.words.at(-1)!.end;
  const starts = cutWords({ words: run.words, labelWidth: run.label ? displayWidth(run.label) : 0, limits, ended, after: runEnd });
  const last = ended ? run.words.length : run.words.length - keptWords(limits);
  const cues: Cue[] = [];
  for (let k = 0; k < starts.length; k++) {
    const j = starts[k]!;
    const i = starts[k + 1] ?? run.words.length;
    if (i > last) break;
    const words = run.words.slice(j, i);
    const start = Math.max(words[0]!.start, shaping.previousEnd);
    const wanted = Math.max(words.at(-1)!.end, start + minCueMs, start + Math.ceil((shownWidth(words) * 1000) / maxCharactersPerSecond));
    const next = i < run.words.length ? run.words[i]!.start : runEnd;
    const end = Math.max(start, Math.min(wanted, next, start + limits.maxCueSeconds * 1000, mediaEnd));
    const label = j === 0 ? run.label : null;
    // The cut made room for the label (cutWords), so the layout with it always fits; were it not to, the label stays.
    const lines = layOutLines(words, label, limits) ?? [...(label === null ? [] : [label]), ...(layOutLines(words, null, limits) ?? [])];
    cues.push({ start, end, speaker: run.speaker, label, lines, words });
    shaping.previousEnd = end;
  }
  const made = starts[cues.length] ?? run.words.length;
  if (made > 0) (run.words = run.words.slice(made)), (run.label = null);
  return cues;
}

/**
 * A turn's label, cut to fit: a line at most, or, on one-line cues, half of one, the turn's first word then cut (as a
 * word wider than a line is) to fit beside it. A speaker's turn always starts with their label.
 */
function openRun(speaker: string | null, words: TimedWord[], turnStart: boolean, limits: CueLimits, options: ShapeOptions): OpenRun {
  const room = limits.maxLines > 1 ? limits.maxLineLength : Math.floor(limits.maxLineLength / 2);
  const asked = turnStart && speaker !== null ? (options.label?.(speaker, room) ?? null) : null;
  const label = asked === null ? null : truncated(asked, room);
  const beside = label === null ? 0 : limits.maxLineLength - displayWidth(label) - 1;
  if (label !== null && limits.maxLines === 1 && words[0]!.width > beside) words.splice(0, 1, ...splitWord(words[0]!, beside));
  return { speaker, label, words };
}

/**
 * Segments as subtitle cues shaped for reading, made as they are read (a run, or a few thousand words of a long one,
 * at a time, in time linear in the words): at most `maxLines` lines of at most `maxLineLength` characters, a new cue
 * at every change of speaker and after a long pause, each cue up from its first word until its last word ends, longer
 * (into the silence after it, never past the next cue, `maxCueSeconds` or the media's end) to last a second and to be
 * read at 17 characters a second. Words keep their order and none is lost or repeated; cues follow each other without
 * overlapping; a speaker's turn starts with their label.
 */
export function* subtitleCues(segments: readonly ExportSegment[], options: ShapeOptions = {}): Generator<Cue> {
  const limits = options.limits ?? defaultCueLimits;
  const mediaEnd = segments.reduce((end, s) => Math.max(end, s.start, s.end), options.mediaEndMs ?? 0);
  const shaping: Shaping = { limits, mediaEnd, previousEnd: 0 };
  let run: OpenRun | null = null;
  for (const part of speechParts(segments, limits.maxLineLength, cueBreakingPauseMs)) {
    if (part.newRun) {
      if (run) yield* cuesOfRun(run, shaping, true, part.words[0]!.start);
      run = openRun(part.speaker, part.words, part.turnStart, limits, options);
    } else for (const word of part.words) run!.words.push(word);
    if (run!.words.length >= heldWords(limits)) yield* cuesOfRun(run!, shaping, false, 0);
  }
  if (run) yield* cuesOfRun(run, shaping, true, mediaEnd);
}

/** The cues, all at once (tests and benches; downloads stream `subtitleCues`). */
export const shapeCues = (segments: readonly ExportSegment[], options: ShapeOptions = {}): Cue[] => [...subtitleCues(segments, options)];
