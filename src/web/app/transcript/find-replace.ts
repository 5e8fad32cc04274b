import { withoutWords, type Segment } from "./segments.ts";

export type FindOptions = { matchCase: boolean };

/** The query as a global regular expression that matches it literally (regex characters in it mean themselves). */
function pattern(query: string, { matchCase }: FindOptions): RegExp {
  return new RegExp(query.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), matchCase ? "g" : "gi");
}

/** How many times the query occurs across the transcript's text (0 for an empty query). */
export function countMatches(segments: readonly Segment[], query: string, options: FindOptions): number {
  if (query === "") return 0;
  const regex = pattern(query, options);
  let count = 0;
  for (const segment of segments) count += segment.text.match(regex)?.length ?? 0;
  return count;
}

/**
 * Every occurrence replaced, as one edit (one save, one undo step). Segments without a match are returned as
 * they were, tokens and all; a changed segment loses its tokens and timed words, which were the old text's.
 * The replacement is literal: `$&` or `$1` in it are not patterns.
 */
export function replaceAll(segments: readonly Segment[], query: string, replacement: string, options: FindOptions): Segment[] {
  if (query === "") return [...segments];
  const regex = pattern(query, options);
  return segments.map((segment) => {
    const text = segment.text.replace(regex, () => replacement);
    return text === segment.text ? segment : withoutWords({ ...segment, text, tokens: null });
  });
}
