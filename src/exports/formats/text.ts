/**
 * What every export format shares: the segment shape it reads, clean text and clock times.
 * Formatters are pure (no I/O, no clock) so they are tested alone and benchmarked alone.
 */
export type ExportSegment = { start: number; end: number; text: string; speaker: string | null; id?: number; words?: readonly ExportWord[] };

/** A recognised word of a segment: media times in ms, the engine's confidence (0..1) or null. */
export type ExportWord = { text: string; start: number; end: number; confidence: number | null };

/**
 * Characters that break files rather than text: C0 controls other than tab and line breaks, DEL, C1
 * controls, lone surrogates and the noncharacters U+FFFE/U+FFFF (invalid in XML, so in docx too).
 * Bidi marks and zero-width joiners are text and stay.
 */
// eslint-disable-next-line no-control-regex
const unsafe = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]/g;

/** The text with unsafe characters removed, lone surrogates replaced (U+FFFD) and line breaks as `\n`. */
export function cleanText(text: string): string {
  return text
    .toWellFormed()
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, "\n")
    .replace(unsafe, "");
}

/** One line: every run of whitespace (line breaks and tabs included) becomes one space. */
export function oneLine(text: string): string {
  return cleanText(text).replace(/\s+/g, " ").trim();
}

/** `HH:MM:SS<sep>mmm`; hours take more than two digits past 99 h. Negative or fractional ms are clamped and rounded. */
export function clock(ms: number, separator: "," | "."): string {
  const total = Math.max(0, Math.round(ms));
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor(total / 60_000) % 60;
  const seconds = Math.floor(total / 1000) % 60;
  const millis = total % 1000;
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)}${separator}${pad(millis, 3)}`;
}

/** `H:MM:SS` for people (documents), `M:SS` under an hour. */
export function shortClock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const rest = `${pad(Math.floor(total / 60) % 60, 2)}:${pad(total % 60, 2)}`;
  return hours > 0 ? `${hours}:${rest}` : rest.replace(/^0/, "");
}

const pad = (value: number, width: number) => String(value).padStart(width, "0");

/** Segments in time order (stable: equal starts keep the transcript's order), as players expect cues. */
export function byStart(segments: readonly ExportSegment[]): ExportSegment[] {
  return segments
    .map((segment, i) => ({ segment, i }))
    .sort((a, b) => a.segment.start - b.segment.start || a.i - b.i)
    .map(({ segment }) => segment);
}

/** The speaker as one clean line, or null when there is none. */
export function speakerLabel(speaker: string | null | undefined): string | null {
  if (speaker === null || speaker === undefined) return null;
  const label = oneLine(speaker);
  return label.length > 0 ? label : null;
}
