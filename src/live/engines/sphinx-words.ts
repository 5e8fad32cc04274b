/** From what PocketSphinx's library answers (a hypothesis string, timed segments) to words, as the batch engine reads them. */
import type { RecognizedWord } from "../../transcription/engine.ts";
import { isFiller } from "../../transcription/engines/sphinx-tokens.ts";

/** PocketSphinx's frame rate (`-frate`, left at its default): frames of 10 ms. */
export const sphinxFrameMs = 10;

/** A segment as `ps_seg_*` gives it: a word or filler, its first and last frame, its posterior probability (0..1). */
export type DecodedSegment = { word: string; startFrame: number; endFrame: number; posterior: number };

/** `word(2)` is the second pronunciation of `word` in the dictionary. */
const baseWord = (token: string) => token.replace(/\(\d+\)$/, "");

/** The words of a hypothesis string, fillers (`<sil>`, `[NOISE]`, `++UH++`) left out. */
export function hypothesisWords(hypothesis: string): string[] {
  return hypothesis
    .split(/\s+/)
    .filter((token) => token !== "" && !isFiller(token))
    .map(baseWord);
}

/** Timed words, ms from the stream's start (the turn's first sample), as `pocketsphinx_continuous -time yes` prints them. */
export function wordsOfSegments(segments: readonly DecodedSegment[]): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const segment of segments) {
    if (segment.word === "" || isFiller(segment.word)) continue;
    words.push({
      text: baseWord(segment.word),
      start: segment.startFrame * sphinxFrameMs,
      end: segment.endFrame * sphinxFrameMs,
      confidence: Number.isFinite(segment.posterior) ? Math.min(1, Math.max(0, segment.posterior)) : null,
    });
  }
  return words;
}
