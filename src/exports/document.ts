import type { TaskDocument, TranscriptDocument } from "../tasks/tasks-projection.ts";
import { shortClock, type ExportSegment, type ExportWord } from "./formats/text.ts";

/** What a pdf or docx shows: the task's name, date, duration and summary, then the timed transcript. */
export type ExportDocument = {
  name: string;
  /** ISO 8601 (the task's `created_at`). */
  createdAt: string;
  durationSeconds: number;
  summary: string | null;
  segments: ExportSegment[];
};

type StoredSegment = { id?: number; start: number; end: number; text: string; speaker?: string | null; words?: ExportWord[] };

/** What a pdf or docx shows of a stored segment: its times, text and speaker. */
export function exportSegments(segments: readonly unknown[] | null | undefined): ExportSegment[] {
  return ((segments ?? []) as StoredSegment[]).map(({ start, end, text, speaker }) => ({ start, end, text, speaker: speaker ?? null }));
}

/** The stored segments with their ids and timed words too, for the formats that use them (subtitles' cues, json). */
export function timedSegments(segments: readonly unknown[] | null | undefined): ExportSegment[] {
  return ((segments ?? []) as StoredSegment[]).map(({ id, start, end, text, speaker, words }) => ({
    start,
    end,
    text,
    speaker: speaker ?? null,
    ...(typeof id === "number" ? { id } : {}),
    ...(Array.isArray(words) ? { words } : {}),
  }));
}

export function exportDocument(
  task: Pick<TaskDocument, "name" | "createdAt" | "duration">,
  transcript: Pick<TranscriptDocument, "segments" | "summary"> | null,
): ExportDocument {
  const segments = exportSegments(transcript?.segments);
  const lastEnd = segments.reduce((end, s) => Math.max(end, s.end), 0);
  return {
    name: task.name,
    createdAt: task.createdAt,
    durationSeconds: task.duration || Math.ceil(lastEnd / 1000),
    summary: transcript?.summary ?? null,
    segments,
  };
}

/** "23 November 2025, 09:30 UTC": unambiguous in every locale. */
export function documentDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const day = date.toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });
  return `${day}, ${date.toISOString().slice(11, 16)} UTC`;
}

export const documentDuration = (seconds: number) => shortClock(seconds * 1000);

/** Text that reads right to left (Hebrew, Arabic, Syriac, Thaana, N'Ko…) outweighs left-to-right letters. */
export function isMostlyRtl(text: string): boolean {
  const rtl = text.match(/[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff]/g)?.length ?? 0;
  const ltr = text.match(/\p{L}/gu)?.length ?? 0;
  return rtl > 0 && rtl * 2 >= ltr;
}
