/**
 * A finished task's transcript in the shapes of OpenAI's `POST /v1/audio/transcriptions` (`json`, `text`,
 * `srt`, `vtt`, `verbose_json`). Pure: the subtitle formats are the exports capability's own renderers, so
 * a `.srt` from here and from `GET /api/tasks/{id}/download/srt` are the same file.
 */
import { deflateSync } from "node:zlib";
import type { Segment } from "../tasks/segments.ts";
import { srt } from "../exports/formats/srt.ts";
import { vtt } from "../exports/formats/vtt.ts";
import { seconds, verboseWords, type VerboseWord } from "./verbose-words.ts";

export const responseFormats = ["json", "text", "srt", "vtt", "verbose_json"] as const;
export type ResponseFormat = (typeof responseFormats)[number];

export const granularities = ["word", "segment"] as const;
export type Granularity = (typeof granularities)[number];

export type VerboseSegment = {
  id: number;
  seek: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
};
export type VerboseTranscription = {
  task: "transcribe";
  language: string;
  duration: number;
  text: string;
  segments?: VerboseSegment[];
  words?: VerboseWord[];
  usage: { type: "duration"; seconds: number };
};

/** What the answer is made of: the transcript, and facts about the media and the request. */
export type TranscriptFacts = {
  segments: readonly Segment[];
  /** The media's length in seconds, as ffprobe measured it. */
  durationSeconds: number;
  /** The seconds the task was charged (OpenAI's `usage`). */
  chargedSeconds: number;
  language: string;
  /** `timestamp_granularities[]` as asked: none, `segment`, `word` or both. */
  granularities: readonly Granularity[];
};

const spoken = (segments: readonly Segment[]) => segments.filter((s) => s.text.trim() !== "");

/** The whole transcript as one text, segments joined by a space (OpenAI's `text`). */
export const fullText = (segments: readonly Segment[]) =>
  spoken(segments)
    .map((s) => s.text.trim())
    .join(" ");

/** Whisper's measure of repetition: the text's UTF-8 length over its zlib-compressed length. */
export function compressionRatio(text: string): number {
  const bytes = Buffer.from(text, "utf8");
  return bytes.length === 0 ? 0 : Math.round((bytes.length / deflateSync(bytes).length) * 1000) / 1000;
}

/** A spoken segment in `verbose_json`'s shape. */
function verboseSegment(s: Segment, i: number): VerboseSegment {
  return {
    id: i,
    seek: Math.floor(s.start / 10),
    start: seconds(s.start),
    end: seconds(Math.max(s.end, s.start)),
    text: s.text.trim(),
    tokens: [],
    temperature: 0,
    avg_logprob: 0,
    compression_ratio: compressionRatio(s.text.trim()),
    no_speech_prob: 0,
  };
}

/**
 * `verbose_json`. What the service does not have is given as Whisper's neutral values and documented in
 * docs/api.md: no token ids (`tokens` is empty), `temperature` 0, `avg_logprob` 0, `no_speech_prob` 0;
 * `seek` is the segment's start in Whisper's 10 ms frames. `compression_ratio` is measured. As OpenAI answers:
 * `segments` unless only `word` granularity was asked, `words` when it was.
 */
export function verboseJson(facts: TranscriptFacts): VerboseTranscription {
  const segments = spoken(facts.segments);
  const wordsAsked = facts.granularities.includes("word");
  const segmentsAsked = facts.granularities.includes("segment") || !wordsAsked;
  return {
    task: "transcribe",
    language: facts.language,
    duration: Math.round(facts.durationSeconds * 1000) / 1000,
    text: fullText(segments),
    ...(segmentsAsked ? { segments: segments.map(verboseSegment) } : {}),
    ...(wordsAsked ? { words: segments.flatMap(verboseWords) } : {}),
    usage: { type: "duration", seconds: facts.chargedSeconds },
  };
}

/** The answer for a format: its body and content type (text/plain for text, srt and vtt, as OpenAI sends them). */
export function render(format: ResponseFormat, facts: TranscriptFacts): { body: string; contentType: string } {
  const exportable = facts.segments.map((s) => ({ start: s.start, end: s.end, text: s.text, speaker: s.speaker }));
  switch (format) {
    case "json":
      return {
        body: JSON.stringify({ text: fullText(facts.segments), usage: { type: "duration", seconds: facts.chargedSeconds } }),
        contentType: "application/json",
      };
    case "verbose_json":
      return { body: JSON.stringify(verboseJson(facts)), contentType: "application/json" };
    case "text":
      return { body: `${fullText(facts.segments)}\n`, contentType: "text/plain; charset=utf-8" };
    case "srt":
      return { body: srt(exportable), contentType: "text/plain; charset=utf-8" };
    case "vtt":
      return { body: vtt(exportable), contentType: "text/plain; charset=utf-8" };
  }
}
