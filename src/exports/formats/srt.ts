import { clock, type ExportSegment } from "./text.ts";
import { subtitleCues, type SubtitleOptions } from "./subtitle-cues.ts";
import { truncated } from "./timed-words.ts";

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

/** A speaker's label, `Ann:`, the name cut to fit in `maxWidth` characters (`A speaker whose na…:`). */
export const srtLabel = (speaker: string, maxWidth: number) => `${truncated(speaker, maxWidth - 1)}:`;

/**
 * SubRip: numbered cues (1, 2, …), `HH:MM:SS,mmm --> HH:MM:SS,mmm` with a comma, the text, a blank line. Cues are
 * shaped for reading (subtitle-cues.ts): split and joined on word times, at most `maxLines` lines of
 * `maxLineLength` characters, made as the file is sent. A speaker is named by an `Ann:` label at the start of each of
 * their turns, always (cut to fit: subtitle-cues.ts). What must not appear is kept out: `-->` in the text (a reader
 * could take the line for a timing line; it becomes `->`) and markup (above); lines are never empty, so no blank line
 * ends a cue early.
 */
export function* srtChunks(segments: readonly ExportSegment[], options: SubtitleOptions = {}): Generator<string> {
  let number = 0;
  for (const cue of subtitleCues(segments, { ...options, label: srtLabel })) {
    number++;
    yield `${number}\n${clock(cue.start, ",")} --> ${clock(cue.end, ",")}\n${cue.lines.map(neutralizeSrt).join("\n")}\n\n`;
  }
}

export const srt = (segments: readonly ExportSegment[], options: SubtitleOptions = {}) => [...srtChunks(segments, options)].join("");
