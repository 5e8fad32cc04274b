import type { TaskState } from "./task-state.ts";
/**
 * What a task's status stream says of where it is (`GET /api/tasks/{id}/events`, `event: status`), read defensively
 * (a field this app does not know, or an older server without them, reads as nothing to say), and in words.
 */

/** The stages the stream names while a task is in progress (docs/api.md). */
export type Stage = "queued" | "fetching" | "preparing" | "recognising" | "summarising";
const stages: readonly string[] = ["queued", "fetching", "preparing", "recognising", "summarising"] satisfies Stage[];

/** Recognition's progress: whole percent of the media recognised, and chunks ("parts") done of all. */
export type Progress = { percent: number; chunks_done: number; chunks: number };

/** A followed task as the stream last said it. */
export type Followed = { status: TaskState; attempts: number; failure_reason: string | null; stage: Stage | null; progress: Progress | null };

const count = (value: unknown): value is number => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;

function progressOf(value: unknown): Progress | null {
  if (typeof value !== "object" || value === null) return null;
  const { percent, chunks_done, chunks } = value as Record<string, unknown>;
  if (!count(percent) || !count(chunks_done) || !count(chunks) || percent > 100 || chunks_done > chunks) return null;
  return { percent, chunks_done, chunks };
}

/** One `event: status`'s data (already parsed JSON, with a string `status`) as the page uses it. */
export function readFollowed(data: { status: TaskState } & Record<string, unknown>): Followed {
  const stage = typeof data.stage === "string" && stages.includes(data.stage) ? (data.stage as Stage) : null;
  return {
    status: data.status,
    attempts: count(data.attempts) ? data.attempts : 1,
    failure_reason: typeof data.failure_reason === "string" ? data.failure_reason : null,
    stage,
    progress: progressOf(data.progress),
  };
}

/** A stage where the stream names none (an older server, or before its first event): from the status alone. */
function stageOfStatus(status: string): Stage | null {
  if (status === "pending") return "queued";
  if (status === "waiting") return "fetching";
  return null;
}

const headlines: Record<Stage, string> = {
  queued: "Waiting for a free slot",
  fetching: "Fetching the media",
  preparing: "Preparing the audio",
  recognising: "Recognising speech",
  summarising: "Summarising",
};

/**
 * The sentence a person reads (and a screen reader announces) for where a task is, and a line more about it.
 * `queued` while scribing means its parts wait for a recogniser that other recordings are using.
 */
export function stageInWords(status: string, stage: Stage | null): { headline: string; detail: string | null } {
  if (status === "finished") return { headline: "The transcript is ready.", detail: null };
  if (status === "failed") return { headline: "The transcription failed.", detail: null };
  const known = stage ?? stageOfStatus(status);
  if (known === null) return { headline: "Transcribing", detail: null };
  const detail: Record<Stage, string> = {
    queued: status === "scribing" ? "Other recordings are being recognised; this one is next in line." : "It starts as soon as a transcription slot is free.",
    fetching: "Downloading the media from its link.",
    preparing: "Reading and decoding the media, and cutting it into parts at its pauses.",
    recognising: "The speech is turned into text, part by part.",
    summarising: "Making the segments, the summary and the mind map.",
  };
  return { headline: headlines[known], detail: detail[known] };
}

/** "40 % · 2 of 5 parts recognised". */
export function progressInWords(progress: Progress): string {
  return `${progress.percent} % · ${progress.chunks_done} of ${progress.chunks} ${progress.chunks === 1 ? "part" : "parts"} recognised`;
}

/** A duration people can read only where it is known: a task whose media is not yet measured says 0, which is not its length. */
export const knownDuration = (seconds: number | null | undefined): number | null =>
  typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
