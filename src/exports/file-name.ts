import { cleanText } from "./formats/text.ts";

/**
 * The download's file name: the task's name with what file systems refuse (`/ \ : * ? " < > |`,
 * controls) replaced, trimmed of dots and spaces at the ends, at most 200 characters, then the
 * format's extension. The route sends it with `attachmentDisposition`: the full UTF-8 name in
 * `filename*`, an ASCII `filename` for old clients (RFC 6266).
 */
export function exportFileName(taskName: string, format: string): string {
  const base = [
    ...cleanText(taskName)
      .replace(/[\n\t]/g, " ")
      .replace(/[/\\:*?"<>|]/g, "_")
      .replace(/^[\s.]+|[\s.]+$/g, ""),
  ]
    .slice(0, 200)
    .join("");
  return `${base || "transcript"}.${format}`;
}
