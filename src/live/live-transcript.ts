/** A live session's turns as a task's transcript: one segment per turn, its timed words kept, speakers when asked. */
import type { Segment, TranscriptWord } from "../tasks/segments.ts";
import { diarize } from "../transcription/diarization.ts";
import { sentenceCase } from "../transcription/segmenting.ts";
import { pcmOffset, wavHeaderBytes } from "../transcription/wav.ts";
import type { LiveTurn } from "./live-session-types.ts";

/** A time as whole ms within the recording (a time that is no number, from an engine gone wrong, as its start). */
const clamp = (ms: number, durationMs: number) => (Number.isFinite(ms) ? Math.min(Math.max(0, Math.round(ms)), Math.max(0, Math.round(durationMs))) : 0);

/**
 * One segment per turn that said something, in order, times clamped to the recording (whole ms, as the read models
 * keep them). An engine that does not punctuate (PocketSphinx) gets its sentence case, as its batch transcripts do.
 */
export function segmentsOfTurns(turns: readonly LiveTurn[], durationMs: number): Segment[] {
  const segments: Segment[] = [];
  for (const turn of turns) {
    const tokens = turn.text.split(/\s+/).filter(Boolean);
    if (tokens.length === 0) continue;
    const start = clamp(turn.start, durationMs);
    const words: TranscriptWord[] = turn.words.map((word) => {
      const from = clamp(word.start, durationMs);
      return { text: word.text, start: from, end: Math.max(from, clamp(word.end, durationMs)), confidence: word.confidence };
    });
    segments.push({
      id: segments.length + 1,
      start,
      end: Math.max(start, clamp(turn.end, durationMs)),
      text: turn.punctuated ? tokens.join(" ") : sentenceCase(tokens),
      speaker: null,
      tokens: words.length > 0 ? words.map((word) => word.text) : null,
      ...(words.length > 0 && { words }),
    });
  }
  return segments;
}

/**
 * Speakers told apart on the recording itself (diarization.ts, as a recognised task's are): each segment's samples
 * read from the WAV, past its 44-byte header.
 */
export function withSpeakers(segments: Segment[], wavPath: string, maxSpeakers: number): Promise<Segment[]> {
  const file = Bun.file(wavPath);
  const read = async (start: number, end: number) => {
    const data = await file.slice(wavHeaderBytes + pcmOffset(start), wavHeaderBytes + pcmOffset(end)).arrayBuffer();
    return new Int16Array(data, 0, Math.floor(data.byteLength / 2));
  };
  return diarize(segments, read, { maxSpeakers });
}
