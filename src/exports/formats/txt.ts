import { oneLine, speakerLabel, type ExportSegment } from "./text.ts";

/**
 * Plain text: one line per segment, in the transcript's order, `Speaker: text` when the segment has a
 * speaker. Line breaks inside a segment become spaces, so line N is always segment N (without speakers,
 * the file is exactly what `PATCH /api/tasks/{id}` accepts as `text`). UTF-8 without BOM, `\n` endings.
 */
export function* txtChunks(segments: readonly ExportSegment[]): Generator<string> {
  for (const segment of segments) {
    const speaker = speakerLabel(segment.speaker);
    const text = oneLine(segment.text);
    yield `${speaker ? `${speaker}: ${text}`.trimEnd() : text}\n`;
  }
}

export const txt = (segments: readonly ExportSegment[]) => [...txtChunks(segments)].join("");
