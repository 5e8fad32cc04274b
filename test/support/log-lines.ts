/** The service's log lines (src/logging/logger.ts), parsed: one JSON object per line of its stdout. */
export type LogLine = { level: string; time: string; msg: string; component?: string } & Record<string, unknown>;

/** Every line of `text` parsed, and the lines that are not JSON objects (none, when stdout is the log alone). */
export function parseLog(text: string): { lines: LogLine[]; notJson: string[] } {
  const lines: LogLine[] = [];
  const notJson: string[] = [];
  for (const raw of text.split("\n")) {
    if (raw.trim() === "") continue;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) lines.push(parsed as LogLine);
      else notJson.push(raw);
    } catch {
      notJson.push(raw);
    }
  }
  return { lines, notJson };
}

/** The log lines in output that may mix in other text (stderr): what is not JSON is left out. */
export const logLinesIn = (text: string): LogLine[] => parseLog(text).lines;
