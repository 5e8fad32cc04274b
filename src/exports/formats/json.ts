import { cleanText, type ExportSegment, type ExportWord } from "./text.ts";

type JsonWord = { text: string; start: number; end: number; confidence: number | null };
type JsonSegment = { id: number; start: number; end: number; text: string; speaker: string | null; words?: JsonWord[] };

const jsonWord = ({ text, start, end, confidence }: ExportWord): JsonWord => ({ text: cleanText(text), start, end, confidence: confidence ?? null });

function jsonSegment(segment: ExportSegment, index: number): JsonSegment {
  const shown: JsonSegment = {
    id: segment.id ?? index + 1,
    start: segment.start,
    end: segment.end,
    text: cleanText(segment.text),
    speaker: segment.speaker === null ? null : cleanText(segment.speaker),
  };
  if (segment.words && segment.words.length > 0) shown.words = segment.words.map(jsonWord);
  return shown;
}

/**
 * The transcript as JSON: `{"segments": [{id, start, end, text, speaker, words?}]}` in the transcript's order, times
 * in milliseconds of the media as everywhere in the API. `words` (`{text, start, end, confidence}`) is on a segment
 * whose words the engine timed; a transcript a client supplied, or a segment edited since, has none. Text is cleaned
 * as in every format. One segment a chunk, so a long transcript streams.
 */
export function* jsonChunks(segments: readonly ExportSegment[]): Generator<string> {
  yield '{"segments":[';
  for (const [i, segment] of segments.entries()) yield `${i > 0 ? "," : ""}${JSON.stringify(jsonSegment(segment, i))}`;
  yield "]}\n";
}

export const json = (segments: readonly ExportSegment[]) => [...jsonChunks(segments)].join("");
