import { byStart, clock, cueLines, speakerLabel, type ExportSegment } from "./text.ts";

/** WebVTT text escapes: `&`, `<` and `>` (which also keeps `-->` out of cue text). */
export function escapeVtt(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * WebVTT: the `WEBVTT` header, then cues with numeric identifiers and `HH:MM:SS.mmm` times (a dot),
 * text escaped with character references. A speaker is a voice span, `<v Speaker>text`, which players
 * show as the speaker and `::cue(v[voice=…])` can style. Cues come in time order; segments with no
 * text make no cue.
 */
export function* vttChunks(segments: readonly ExportSegment[]): Generator<string> {
  yield "WEBVTT\n\n";
  let number = 0;
  for (const segment of byStart(segments)) {
    const lines = cueLines(segment.text).map(escapeVtt);
    if (lines.length === 0) continue;
    const speaker = speakerLabel(segment.speaker);
    if (speaker) lines[0] = `<v ${escapeVtt(speaker)}>${lines[0]}`;
    number++;
    yield `${number}\n${clock(segment.start, ".")} --> ${clock(Math.max(segment.end, segment.start), ".")}\n${lines.join("\n")}\n\n`;
  }
}

export const vtt = (segments: readonly ExportSegment[]) => [...vttChunks(segments)].join("");
