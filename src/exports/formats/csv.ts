import { clock, cleanText, type ExportSegment } from "./text.ts";

/**
 * Spreadsheets run a cell that starts with one of these as a formula (CSV injection), so such a text
 * or speaker cell gets a leading apostrophe, which spreadsheets hide and treat as "this is text"
 * (OWASP's advice).
 */
const formulaStart = /^[=+\-@\t\r]/;

/** RFC 4180: a field with a comma, quote or line break is quoted, and its quotes doubled. */
export function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const textCell = (value: string) => csvField(formulaStart.test(value) ? `'${value}` : value);

export const csvHeader = ["id", "start", "end", "start_ms", "end_ms", "speaker", "text"] as const;

/**
 * RFC 4180 CSV, one row per segment in the transcript's order, CRLF line endings, a header row.
 * UTF-8 with a byte-order mark: without it Excel reads the file in the legacy code page and garbles
 * every non-ASCII character; with it Excel, LibreOffice, Numbers and Google Sheets all read UTF-8, and
 * RFC 4180 parsers that don't skip it see it only before the first header name.
 * `start`/`end` are `HH:MM:SS.mmm`, `start_ms`/`end_ms` the exact milliseconds.
 */
export function* csvChunks(segments: readonly ExportSegment[], options: { bom?: boolean } = {}): Generator<string> {
  yield `${options.bom === false ? "" : "\uFEFF"}${csvHeader.join(",")}\r\n`;
  let id = 0;
  for (const segment of segments) {
    id++;
    const text = cleanText(segment.text).replace(/\n/g, "\r\n");
    const speaker = segment.speaker === null ? "" : cleanText(segment.speaker).replace(/\s+/g, " ").trim();
    yield `${id},${clock(segment.start, ".")},${clock(segment.end, ".")},${segment.start},${segment.end},${textCell(speaker)},${textCell(text)}\r\n`;
  }
}

export const csv = (segments: readonly ExportSegment[], options: { bom?: boolean } = {}) => [...csvChunks(segments, options)].join("");
