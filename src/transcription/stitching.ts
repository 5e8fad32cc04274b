import type { RecognizedWord } from "./engine.ts";

export type ChunkResult = { start: number; end: number; words: RecognizedWord[] };

/**
 * Puts the words of every chunk back on the media's clock: a chunk's times count from its own start.
 * Words are kept inside their chunk (an engine may overshoot its end a little) and in time order.
 */
export function stitch(chunks: ChunkResult[]): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const chunk of [...chunks].sort((a, b) => a.start - b.start)) {
    for (const word of chunk.words) {
      const start = Math.min(chunk.end, chunk.start + Math.max(0, word.start));
      const end = Math.min(chunk.end, Math.max(start, chunk.start + word.end));
      words.push({ ...word, start, end });
    }
  }
  return words.sort((a, b) => a.start - b.start || a.end - b.end);
}

/** Mean confidence of the words the engine was sure about, as spec 2.1's quality (0 to 5); null when unknown. */
export function qualityOf(words: RecognizedWord[]): number | null {
  const known = words.filter((w) => w.confidence !== null);
  if (known.length === 0) return null;
  const mean = known.reduce((sum, w) => sum + w.confidence!, 0) / known.length;
  return Math.max(0, Math.min(5, Math.round(mean * 5)));
}
