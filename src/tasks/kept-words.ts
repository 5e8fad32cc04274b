import type { Segment } from "./segments.ts";

/**
 * A `PATCH` with `segments` sends the whole transcript back (the web app does, for every edit), and segments carry no
 * timed words on the way in. A segment sent back as it was stored (same id, start, end and text) keeps the words the
 * engine timed; one whose text or times changed has none, since they no longer say what it says. A speaker change
 * keeps them: the words are still those spoken.
 */
export function withKeptWords(sent: Segment[], stored: readonly Segment[]): Segment[] {
  const timed = new Map<number, Segment>();
  for (const segment of stored) if (segment.words && segment.words.length > 0) timed.set(segment.id, segment);
  if (timed.size === 0) return sent;
  return sent.map((segment) => {
    const before = timed.get(segment.id);
    const same = before !== undefined && before.start === segment.start && before.end === segment.end && before.text === segment.text;
    return same ? { ...segment, words: before.words } : segment;
  });
}
