import type { ExportSegment } from "./text.ts";
import { srtChunks } from "./srt.ts";
import { vttChunks } from "./vtt.ts";
import { csvChunks } from "./csv.ts";
import { txtChunks } from "./txt.ts";
import { jsonChunks } from "./json.ts";
import type { SubtitleOptions } from "./subtitle-cues.ts";

export type LightFormat = "txt" | "srt" | "vtt" | "csv" | "json";
export type HeavyFormat = "pdf" | "docx";
export type ExportFormat = LightFormat | HeavyFormat;

export const lightFormats: readonly LightFormat[] = ["txt", "srt", "vtt", "csv", "json"];
export const exportFormats: readonly ExportFormat[] = ["txt", "srt", "vtt", "csv", "json", "pdf", "docx"];
/** The formats whose cues are shaped for reading, and so take the subtitle limits. */
export const subtitleFormats: readonly ExportFormat[] = ["srt", "vtt"];
export const isHeavy = (format: ExportFormat): format is HeavyFormat => format === "pdf" || format === "docx";

export const contentTypes: Record<ExportFormat, string> = {
  txt: "text/plain; charset=utf-8",
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8",
  csv: "text/csv; charset=utf-8; header=present",
  json: "application/json",
  pdf: "application/pdf",
  docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
};

/**
 * The light formats, made on request from the transcript, chunk by chunk (one cue or row each). Never stored, so the
 * subtitle `options` (limits, the media's length) shape each file as it is asked for, and no other limits' file is served.
 */
export function lightChunks(format: LightFormat, segments: readonly ExportSegment[], options: SubtitleOptions = {}): Iterable<string> {
  switch (format) {
    case "txt":
      return txtChunks(segments);
    case "srt":
      return srtChunks(segments, options);
    case "vtt":
      return vttChunks(segments, options);
    case "csv":
      return csvChunks(segments);
    case "json":
      return jsonChunks(segments);
  }
}

/** Chunks as a byte stream, encoded about 64 KiB at a time, so a long transcript never sits in memory twice. */
export function chunkStream(chunks: Iterable<string>): ReadableStream<Uint8Array> {
  const iterator = chunks[Symbol.iterator]();
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      let batch = "";
      while (batch.length < 65_536) {
        const next = iterator.next();
        if (next.done) {
          if (batch) controller.enqueue(encoder.encode(batch));
          controller.close();
          return;
        }
        batch += next.value;
      }
      controller.enqueue(encoder.encode(batch));
    },
  });
}
