import { clock, type ExportSegment } from "./text.ts";
import { subtitleCues, type SubtitleOptions } from "./subtitle-cues.ts";

/** WebVTT text escapes: `&`, `<` and `>` (which also keeps `-->` out of cue text). */
export function escapeVtt(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/**
 * WebVTT: the `WEBVTT` header, then cues with numeric identifiers and `HH:MM:SS.mmm` times (a dot), text escaped
 * with character references. Cues are shaped for reading (subtitle-cues.ts). A speaker is a voice span on every
 * cue of theirs, `<v Speaker>text`, which players do not show as text (so it takes no room on the line) and
 * `::cue(v[voice=…])` can style.
 */
export function* vttChunks(segments: readonly ExportSegment[], options: SubtitleOptions = {}): Generator<string> {
  yield "WEBVTT\n\n";
  let number = 0;
  for (const cue of subtitleCues(segments, { ...options, label: () => null })) {
    const lines = cue.lines.map(escapeVtt);
    if (cue.speaker !== null) lines[0] = `<v ${escapeVtt(cue.speaker)}>${lines[0]}`;
    number++;
    yield `${number}\n${clock(cue.start, ".")} --> ${clock(cue.end, ".")}\n${lines.join("\n")}\n\n`;
  }
}

export const vtt = (segments: readonly ExportSegment[], options: SubtitleOptions = {}) => [...vttChunks(segments, options)].join("");
