/** A live session's turns as a task's transcript: one segment per turn, its timed words kept (speakers: live-speakers.ts). */
import type { Segment, TranscriptWord } from "../tasks/segments.ts";
import { sentenceCase } from "../transcription/segmenting.ts";
import type { LiveTurn } from "./live-session-types.ts";

/** A time as whole ms within the recording (a time that is no number, from an engine gone wrong, as its start). */
const clamp = (ms: number, durationMs: number) => (Number.isFinite(ms) ? Math.min(Math.max(0, Math.round(ms)), Math.max(0, Math.round(durationMs))) : 0);

/**
 * One segment per turn that said something, in order, times clamped to the recording (whole ms, as the read models
 * keep them). A segment spans its words where the engine timed them (a turn also holds the padding before its speech and
 * the silence that ended it, so turns overlap), and never starts before the one before it ended. An engine that does not
 * punctuate (PocketSphinx) gets its sentence case, as its batch transcripts do.
 */
export function segmentsOfTurns(turns: readonly LiveTurn[], durationMs: number): Segment[] {
  const segments: Segment[] = [];
  for (const turn of turns) {
    const tokens = turn.text.split(/\s+/).filter(Boolean);
    if (tokens.length === 0) continue;
    const words: TranscriptWord[] = turn.words.map((word) => {
      const from = clamp(word.start, durationMs);
      return { text: word.text, start: from, end: Math.max(from, clamp(word.end, durationMs)), confidence: word.confidence };
    });
    const [turnStart, turnEnd] = [clamp(turn.start, durationMs), clamp(turn.end, durationMs)];
    const spoken =
      words.length > 0
        ? {
            start: Math.max(turnStart, words[0]!.start),
            end: Math.min(
              turnEnd,
              words.reduce((last, w) => Math.max(last, w.end), 0),
            ),
          }
        : null;
    const start = Math.max(segments.at(-1)?.end ?? 0, spoken?.start ?? turnStart);
    segments.push({
      id: segments.length + 1,
      start,
      end: Math.max(start, spoken?.end ?? turnEnd),
      text: turn.punctuated ? tokens.join(" ") : sentenceCase(tokens),
      speaker: null,
      tokens: words.length > 0 ? words.map((word) => word.text) : null,
      ...(words.length > 0 && { words }),
    });
  }
  return segments;
}
