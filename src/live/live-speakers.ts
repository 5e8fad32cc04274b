/**
 * Speakers of a live session's recording, told apart on a thread of its own (diarization.ts, as a recognised task's
 * are): a voice print costs about 127 ms per minute of segment and clustering grows with the square of the turns, so
 * on the API's event loop a session of one long turn (turn detection off, hours at most) or of thousands of short
 * ones would stall every request and socket of the process for seconds. Each segment's print is also taken from at
 * most `voicePrintMs` of it, its middle, so neither time nor memory grows with the length of a turn.
 */
import { BackgroundThread } from "../core/background-thread.ts";
import type { Segment } from "../tasks/segments.ts";
import { diarize } from "../transcription/diarization.ts";
import { pcmOffset, wavHeaderBytes } from "../transcription/wav.ts";

/** The most of a segment its voice print is taken from: plenty to print a voice (a second does), and ~60 ms of work. */
export const voicePrintMs = 30_000;

/** The span of a segment its voice print is read from: all of it up to `voicePrintMs`, else its middle `voicePrintMs`. */
export function voicePrintSpan(start: number, end: number): { start: number; end: number } {
  if (end - start <= voicePrintMs) return { start, end };
  const from = start + Math.floor((end - start - voicePrintMs) / 2);
  return { start: from, end: from + voicePrintMs };
}

/** What the thread is asked: the recording, each segment's times, and how many speakers at most. */
export type SpeakersJob = { wavPath: string; spans: { start: number; end: number }[]; maxSpeakers: number };

/** On the thread: each span's speaker ("Speaker 1", ...), in order, from the samples of its voice-print span. */
export async function speakersHere({ wavPath, spans, maxSpeakers }: SpeakersJob): Promise<string[]> {
  const file = Bun.file(wavPath);
  const read = async (start: number, end: number) => {
    const span = voicePrintSpan(start, end);
    const data = await file.slice(wavHeaderBytes + pcmOffset(span.start), wavHeaderBytes + pcmOffset(span.end)).arrayBuffer();
    return new Int16Array(data, 0, Math.floor(data.byteLength / 2));
  };
  const segments: Segment[] = spans.map(({ start, end }, i) => ({ id: i + 1, start, end, text: "", speaker: null, tokens: null }));
  return (await diarize(segments, read, { maxSpeakers })).map((segment) => segment.speaker ?? "Speaker 1");
}

const thread = new BackgroundThread<SpeakersJob, string[]>(new URL("./live-speakers-thread.ts", import.meta.url), "telling live speakers apart");

/** The segments with their speakers, told apart on the recording at `wavPath` (a 16 kHz PCM WAV) off the event loop. */
export async function withSpeakers(segments: Segment[], wavPath: string, maxSpeakers: number): Promise<Segment[]> {
  if (segments.length === 0) return segments;
  const speakers = await thread.run({ wavPath, spans: segments.map(({ start, end }) => ({ start, end })), maxSpeakers });
  return segments.map((segment, i) => ({ ...segment, speaker: speakers[i] ?? null }));
}
