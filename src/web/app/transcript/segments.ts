/** A recognised word (`?include=words`): media times in ms, the engine's confidence 0..1 or null when it gives none. */
export type Word = { text: string; start: number; end: number; confidence: number | null };

/**
 * A transcript segment as the page holds it: the API's segment (spec 2.1), ids preserved through every
 * save, since `PATCH /api/tasks/{id}` with `segments` keeps the ids it is sent. `words`: its timed words, read
 * with `?include=words`; empty or absent where none are known (a supplied transcript, a segment edited since).
 */
export type Segment = { id: number; start: number; end: number; text: string; speaker: string | null; tokens: string[] | null; words?: readonly Word[] };

/** The segment the player is in at `ms`: the last one started by then and not yet ended, or -1 (before, between or after). */
export function segmentAt(segments: readonly Segment[], ms: number): number {
  // Binary search for the last start ≤ ms: segments come in time order, and a transcript may hold thousands.
  let low = 0;
  let high = segments.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (segments[middle]!.start <= ms) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  return found >= 0 && ms < Math.max(segments[found]!.end, segments[found]!.start + 1) ? found : -1;
}

/** `m:ss`, or `h:mm:ss` past an hour: how people read times beside a transcript. */
export function clock(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor(total / 60) % 60;
  const seconds = String(total % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** The speakers in order of first appearance. */
export function speakersOf(segments: readonly Segment[]): string[] {
  const seen = new Set<string>();
  for (const segment of segments) if (segment.speaker !== null && segment.speaker !== "") seen.add(segment.speaker);
  return [...seen];
}

/**
 * One segment with new text. Its tokens and timed words were the old text's, so they go (the API derives tokens
 * from the text again, and keeps timed words only for segments sent back unchanged); every other segment is sent
 * back exactly as it came.
 */
export function withText(segments: readonly Segment[], id: number, text: string): Segment[] {
  return segments.map((segment) => (segment.id === id && segment.text !== text ? withoutWords({ ...segment, text, tokens: null }) : segment));
}

/** A segment whose text changed: the engine's words no longer say what it says. */
export function withoutWords({ words: _old, ...segment }: Segment): Segment {
  return segment;
}

/** Every segment of speaker `from` now spoken by `to` (which may be a speaker already present: the two merge). */
export function withSpeakerRenamed(segments: readonly Segment[], from: string, to: string): Segment[] {
  return segments.map((segment) => (segment.speaker === from ? { ...segment, speaker: to } : segment));
}

/** Whether the tokens are just the text's words, which the API derives by itself from a null. */
function derivedTokens(text: string, tokens: readonly string[]): boolean {
  const words = text.split(/\s+/).filter(Boolean);
  return words.length === tokens.length && words.every((word, i) => word === tokens[i]);
}

/**
 * The PATCH body's segments, ids kept. Tokens that are only the text's words go back as null: the API shows
 * them the same, and does not store every word of the transcript a second time.
 */
export function toPatch(segments: readonly Segment[]): Segment[] {
  return segments.map(({ id, start, end, text, speaker, tokens }) => ({
    id,
    start,
    end,
    text,
    speaker,
    tokens: tokens === null || derivedTokens(text, tokens) ? null : tokens,
  }));
}
