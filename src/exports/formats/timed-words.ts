import { wordsOfPhrase } from "../../transcription/engine.ts";
import { byStart, cleanText, speakerLabel, type ExportSegment } from "./text.ts";

/**
 * One unit of subtitle text with its time: a word, or a piece of a word too long for a line (`glued`: it
 * continues the word before it, with no space between). `width` is in user-perceived characters.
 */
export type TimedWord = { text: string; start: number; end: number; width: number; glued: boolean };

/**
 * Words of one segment that go to one run (words of one speaker without a long pause: cues never cross from one run to
 * the next). `newRun` when they start a run, `turnStart` when that run starts a speaker's turn.
 */
export type RunPart = { speaker: string | null; words: TimedWord[]; newRun: boolean; turnStart: boolean };

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });
const plain = /^[\x20-\x7e]*$/;

/** The characters a viewer counts: grapheme clusters (an emoji with its skin tone, a letter with its accent, is one). */
export function displayWidth(text: string): number {
  if (plain.test(text)) return text.length;
  let count = 0;
  for (const _ of graphemes.segment(text)) count++;
  return count;
}

const clusters = (text: string) => (plain.test(text) ? Array.from(text) : Array.from(graphemes.segment(text), (s) => s.segment));

/** The words of a segment's text, each with its time: the engine's when it timed each of them, else its share of the segment. */
function segmentWords(segment: ExportSegment): { text: string; start: number; end: number }[] {
  const start = Math.max(0, segment.start);
  const end = Math.max(start, segment.end);
  const text = cleanText(segment.text);
  const timed = segment.words;
  // The text is what is shown; the engine's words give only their times, and only while they still are its words.
  if (!timed) return wordsOfPhrase(text, start, end, null);
  const tokens = text.split(/\s+/).filter(Boolean);
  if (timed.length !== tokens.length) return wordsOfPhrase(text, start, end, null);
  let at = start;
  return tokens.map((text, i) => {
    const word = timed[i]!;
    const wordStart = Math.min(end, Math.max(at, word.start));
    at = wordStart;
    return { text, start: wordStart, end: Math.min(end, Math.max(wordStart, word.end)) };
  });
}

/** The word into `into`: whole, or, wider than a line, in line-wide pieces (never inside a character), each with its share of the word's time. */
function addPieces(into: TimedWord[], word: { text: string; start: number; end: number }, maxWidth: number): void {
  const width = displayWidth(word.text);
  if (width <= maxWidth) {
    into.push({ text: word.text, start: word.start, end: word.end, width, glued: false });
    return;
  }
  const chars = clusters(word.text);
  const span = word.end - word.start;
  for (let from = 0; from < chars.length; from += maxWidth) {
    const to = Math.min(chars.length, from + maxWidth);
    const start = word.start + Math.round((span * from) / chars.length);
    const end = word.start + Math.round((span * to) / chars.length);
    into.push({ text: chars.slice(from, to).join(""), start, end, width: to - from, glued: from > 0 });
  }
}

/**
 * The transcript's timed words in time order, a segment at a time (so a long transcript is never all in memory as
 * words): a new run at every change of speaker and after every pause of `breakingPauseMs` or more. Times never go
 * back (a segment that overlaps the one before starts where that one's words are), so cues made from them are in order.
 */
export function* speechParts(segments: readonly ExportSegment[], maxWidth: number, breakingPauseMs: number): Generator<RunPart> {
  let speakerOfRun: string | null | undefined;
  let lastStart = 0;
  let lastEnd = 0;
  // Speakers repeat: each label is cleaned once.
  const labels = new Map<string | null, string | null>();
  for (const segment of byStart(segments)) {
    let speaker = labels.get(segment.speaker);
    if (speaker === undefined) labels.set(segment.speaker, (speaker = speakerLabel(segment.speaker)));
    const words: TimedWord[] = [];
    for (const word of segmentWords(segment)) addPieces(words, word, maxWidth);
    let part: RunPart | null = null;
    for (const word of words) {
      word.start = Math.max(word.start, lastStart);
      word.end = Math.max(word.end, word.start);
      const turnStart = speakerOfRun === undefined ? speaker !== null : speaker !== speakerOfRun;
      const newRun = speakerOfRun === undefined || turnStart || (!word.glued && word.start - lastEnd >= breakingPauseMs);
      if (newRun || part === null) {
        if (part) yield part;
        part = { speaker, words: [], newRun, turnStart };
        speakerOfRun = speaker;
      }
      part.words.push(word);
      lastStart = word.start;
      lastEnd = Math.max(lastEnd, word.end);
    }
    if (part) yield part;
  }
}

/** The word cut in two after its first `width` characters (`width` under its width), each piece with its share of the time. */
export function splitWord(word: TimedWord, width: number): [TimedWord, TimedWord] {
  const chars = clusters(word.text);
  const at = word.start + Math.round(((word.end - word.start) * width) / chars.length);
  return [
    { text: chars.slice(0, width).join(""), start: word.start, end: at, width, glued: word.glued },
    { text: chars.slice(width).join(""), start: at, end: word.end, width: chars.length - width, glued: true },
  ];
}

/** The text in at most `width` characters (at least 1): whole when it fits, else cut with an ellipsis. */
export function truncated(text: string, width: number): string {
  if (displayWidth(text) <= width) return text;
  return `${clusters(text)
    .slice(0, Math.max(0, width - 1))
    .join("")
    .trimEnd()}…`;
}
