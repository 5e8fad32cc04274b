import { wordsOfPhrase, type RecognizedWord } from "../engine.ts";

/** A segment as `@fugood/whisper.node` returns it: text and milliseconds from the start of the audio. */
export type WhisperSegment = { text: string; t0: number; t1: number };

/**
 * Words with their own times from whisper's answer when asked with token timestamps and `maxLen: 1` (one segment
 * per token): a token that starts with a space starts a word, one that does not (the rest of a long word,
 * punctuation) continues it. A segment holding several words (a binding that ignored maxLen) shares its time
 * among them (wordsOfPhrase). Times are kept inside the chunk (whisper may time past the end of short audio)
 * and in order. The binding gives no token probabilities, so there is no confidence.
 *
 * A token can be part of a character (CJK text): its segment text then holds U+FFFD, and the words are taken
 * from the whole text instead (`whole`, which the binding joins before decoding it), shared over its time.
 */
export function wordsOfSegments(segments: readonly WhisperSegment[], whole: string, durationMs: number): RecognizedWord[] {
  const clamp = (ms: number) => Math.min(Math.max(0, Math.round(ms)), Math.max(0, Math.round(durationMs)));
  if (segments.length === 0) return [];
  if (segments.some((s) => s.text.includes("\uFFFD"))) return wordsOfPhrase(whole.trim(), clamp(segments[0]!.t0), clamp(segments.at(-1)!.t1), null);
  const words: RecognizedWord[] = [];
  for (const segment of segments) {
    const previous = words.at(-1);
    const start = Math.max(clamp(segment.t0), previous?.start ?? 0);
    const pieces = wordsOfPhrase(segment.text, start, Math.max(start, clamp(segment.t1)), null);
    const first = pieces[0];
    if (first && previous && !/^\s/u.test(segment.text)) {
      previous.text += first.text;
      previous.end = Math.max(previous.end, first.end);
      pieces.shift();
    }
    words.push(...pieces);
  }
  return words;
}
