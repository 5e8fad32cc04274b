import { t, type Static } from "elysia";
import { Type } from "@sinclair/typebox";

/** A whole number from 0 to 2^31 - 1, as JSON carries it: a number, never a numeric string (see segmentSchema). */
export const wholeNumber = (options: { description?: string } = {}) => Type.Integer({ minimum: 0, maximum: 2_147_483_647, ...options });

/**
 * Spec 2.1's segment: times in whole milliseconds, `tokens` the words. Its integers are TypeBox's own, not Elysia's
 * `t.Integer` (which also takes a numeric string and converts it): a converting type anywhere in a body makes
 * Elysia copy the whole body to decode it, 33-62 ms on the event loop for a maximal transcript, where checking it
 * takes 1-2 ms. JSON carries numbers as numbers.
 */
export const segmentSchema = t.Object({
  id: t.Optional(wholeNumber()),
  start: wholeNumber({ description: "Start time in ms." }),
  end: wholeNumber({ description: "End time in ms, not before start." }),
  text: t.String({ maxLength: 100_000 }),
  speaker: t.Optional(t.Nullable(t.String({ maxLength: 255 }))),
  tokens: t.Optional(t.Nullable(t.Array(t.String({ maxLength: 1000 }), { maxItems: 100_000 }))),
});

export const segmentsSchema = t.Array(segmentSchema, { maxItems: 100_000 });

export type SegmentInput = Static<typeof segmentSchema>;

/** A recognised word: media times in whole milliseconds, the engine's confidence (0..1) when it gives one. */
export type TranscriptWord = { text: string; start: number; end: number; confidence: number | null };

/**
 * `words`: the engine's timed words, kept with a recognised transcript (absent for one a client supplied, and dropped
 * from a segment whose text is edited, since they no longer say what it says). Shown only on request.
 */
export type Segment = {
  id: number;
  start: number;
  end: number;
  text: string;
  speaker: string | null;
  tokens: string[] | null;
  words?: TranscriptWord[];
};

/** Problems the schema cannot see (an end before its start), keyed like validation errors. */
export function segmentErrors(segments: SegmentInput[], field = "segments"): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  segments.forEach((segment, i) => {
    if (segment.end < segment.start) errors[`${field}.${i}.end`] = [`The ${field}.${i}.end must not be before ${field}.${i}.start.`];
  });
  return errors;
}

/**
 * Numbers segments in order (ids the client sent are kept when unique). Tokens a client did not send are
 * left null and derived from the text where a segment is shown (`withTokens`): for a maximal transcript
 * they were 4.5 million strings, a quarter of a gigabyte made and stored on every create.
 */
export function normalizeSegments(segments: SegmentInput[]): Segment[] {
  const ids = segments.map((s) => s.id);
  const keepIds = ids.every((id) => id !== undefined) && new Set(ids).size === ids.length;
  return segments.map((segment, i) => ({
    id: keepIds ? segment.id! : i + 1,
    start: segment.start,
    end: segment.end,
    text: segment.text,
    speaker: segment.speaker ?? null,
    tokens: segment.tokens ?? null,
  }));
}

/** The segment as shown (spec 2.1): its tokens, or the words of its text when none were given; timed words only on request. */
export function withTokens(segment: Segment): Segment & { tokens: string[] } {
  if (segment.words) {
    const { words: _timed, ...shown } = segment;
    return { ...shown, tokens: shown.tokens ?? words(shown.text) };
  }
  return segment.tokens ? (segment as Segment & { tokens: string[] }) : { ...segment, tokens: words(segment.text) };
}

export function words(text: string): string[] {
  return text.split(/\s+/).filter(Boolean);
}

/**
 * `PATCH text`: the whole transcript as text, one line per segment. With segments, each line replaces
 * the text of the segment at its place (times kept), so the line count must match; without segments,
 * the text becomes one segment over the task's duration.
 */
export function applyText(current: Segment[], text: string, durationSeconds: number): Segment[] | { error: string } {
  const lines = text.replace(/\r\n?/g, "\n").replace(/\n$/, "").split("\n");
  if (current.length === 0) return [{ id: 1, start: 0, end: Math.max(0, durationSeconds) * 1000, text, speaker: null, tokens: null }];
  if (lines.length !== current.length) return { error: `The text must have one line per segment (${current.length} lines, got ${lines.length}).` };
  return current.map((segment, i) => {
    if (segment.text === lines[i]) return segment;
    // The engine's timed words said the old text: an edited line keeps its segment's times, not its words.
    const { words: _recognised, ...edited } = segment;
    return { ...edited, text: lines[i]!, tokens: null };
  });
}
