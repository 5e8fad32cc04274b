import { byStart, clock, cueLines, speakerLabel, type ExportSegment } from "./text.ts";

/**
 * SubRip has no escape mechanism, yet players read HTML-like tags (`<b>`, `< i >`, `<font …>`) and ASS
 * override blocks (`{\an8}`) in cue text. Text that looks like one gets a zero-width space after its
 * `<` or `{`: it still reads the same, and no player takes it for markup. (Entities such as `&lt;` are
 * not decoded by SubRip readers, so they are no way out.)
 */
export function neutralizeSrt(line: string): string {
  return line
    .replace(/-->/g, "->")
    .replace(/<(?=\s*[A-Za-z/])/g, "<\u200b")
    .replace(/\{(?=\\)/g, "{\u200b");
}

/**
 * SubRip: numbered cues (1, 2, …), `HH:MM:SS,mmm --> HH:MM:SS,mmm` with a comma, the text, a blank
 * line. What must not appear is kept out: blank lines inside a cue (they would end it), `-->` in the
 * text (a reader could take the line for a timing line; it becomes `->`) and markup (above). Cues come
 * in time order; segments with no text make no cue, and numbering stays consecutive. A speaker is
 * written as a `Speaker: ` prefix on the first line.
 */
export function* srtChunks(segments: readonly ExportSegment[]): Generator<string> {
  let number = 0;
  for (const segment of byStart(segments)) {
    const lines = cueLines(segment.text).map(neutralizeSrt);
    if (lines.length === 0) continue;
    const speaker = speakerLabel(segment.speaker);
    if (speaker) lines[0] = `${neutralizeSrt(speaker)}: ${lines[0]}`;
    number++;
    yield `${number}\n${clock(segment.start, ",")} --> ${clock(Math.max(segment.end, segment.start), ",")}\n${lines.join("\n")}\n\n`;
  }
}

export const srt = (segments: readonly ExportSegment[]) => [...srtChunks(segments)].join("");
