/**
 * A segment's text with the query's matches marked: HTML-escaped text in which each match is wrapped in
 * `<mark>` and `</mark>`, the only tags it can hold (a `<` of the transcript is `&lt;`). Built here for
 * every store from the same word rules as the index (words.ts), so both backends mark alike. Long segments
 * are cut to a window around the first match, with `…` where text was left out.
 */
import type { TextClause } from "../readmodels/port.ts";
import { tokens, type Token } from "./words.ts";

export const snippetLength = 240;
const leadIn = 80;

type Range = { start: number; end: number };

/** Where the clauses match in the tokens, as text ranges, sorted and merged. */
export function matchRanges(found: readonly Token[], clauses: readonly TextClause[]): Range[] {
  const ranges: Range[] = [];
  for (const { words, prefix } of clauses) {
    const last = words.length - 1;
    for (let i = 0; i + last < found.length; i++) {
      let all = true;
      for (let k = 0; k <= last && all; k++) {
        const word = found[i + k]!.word;
        all = k === last && prefix ? word.startsWith(words[k]!) : word === words[k];
      }
      if (all) ranges.push({ start: found[i]!.start, end: found[i + last]!.end });
    }
  }
  ranges.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: Range[] = [];
  for (const range of ranges) {
    const previous = merged.at(-1);
    if (previous && range.start <= previous.end) previous.end = Math.max(previous.end, range.end);
    else merged.push({ ...range });
  }
  return merged;
}

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c]!);

/** Never cut between the two halves of a surrogate pair. */
function safeCut(text: string, at: number): number {
  const code = text.charCodeAt(at);
  return at > 0 && at < text.length && code >= 0xdc00 && code <= 0xdfff ? at - 1 : at;
}

export function snippet(text: string, clauses: readonly TextClause[]): string {
  const ranges = matchRanges(tokens(text), clauses);
  let from = 0;
  let to = text.length;
  if (text.length > snippetLength) {
    from = safeCut(text, Math.max(0, Math.min((ranges[0]?.start ?? 0) - leadIn, text.length - snippetLength)));
    // Start at a word where one begins close by, rather than in the middle of one.
    const space = text.slice(from, from + 20).search(/\s/);
    if (from > 0 && space >= 0) from += space + 1;
    to = safeCut(text, Math.min(text.length, from + snippetLength));
  }
  let out = from > 0 ? "…" : "";
  let at = from;
  for (const range of ranges) {
    if (range.end <= from || range.start >= to) continue;
    const start = Math.max(range.start, from);
    const end = Math.min(range.end, to);
    out += `${escapeHtml(text.slice(at, start))}<mark>${escapeHtml(text.slice(start, end))}</mark>`;
    at = end;
  }
  out += escapeHtml(text.slice(at, to));
  return to < text.length ? `${out}…` : out;
}
