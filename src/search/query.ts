/**
 * The `q` of GET /api/search, parsed into text clauses (read-model port), or the reason it cannot be. Never
 * passed on as text: a store sees only words (letters and digits), so nothing a user types can be read as
 * FTS5 syntax or a regular expression.
 *
 * - `word`: the word; several bare words must all match, anywhere in the segment, in any order;
 * - `"exact words"`: those words in that order;
 * - `transc*` and `"exact wor"*`: the last word is a prefix;
 * - anything that is not a letter or digit separates words (`e-mail` is the phrase "e mail"), and CJK text
 *   is a phrase of its characters (words.ts). AND, OR, NOT and parentheses are plain words and punctuation.
 *
 * Refused: a control character (NUL included), an unbalanced quote, a `*` that does not end a word or a
 * phrase, and a query with no word at all.
 */
import type { TextClause } from "../readmodels/port.ts";
import { tokens } from "./words.ts";

export const maxQueryLength = 500;
export const maxClauses = 32;
const maxWordsPerClause = 64;

export type ParsedQuery = { clauses: TextClause[] } | { problem: string };

export function parseQuery(q: string): ParsedQuery {
  if (q.trim() === "") return { problem: "The q field is required." };
  if (q.length > maxQueryLength) return { problem: `The q field must not be greater than ${maxQueryLength} characters.` };
  if (/[\u0000-\u001f\u007f]/.test(q)) return { problem: "The q field must not contain control characters." };
  if ((q.match(/"/g)?.length ?? 0) % 2 !== 0) return { problem: "The q field has an unbalanced quote." };

  const clauses: TextClause[] = [];
  // Quoted phrases (with an optional * right after) and bare items, in order.
  for (const [, phrase, phraseStar, bare] of q.matchAll(/"([^"]*)"(\*?)|([^\s"]+)/g)) {
    let text: string;
    let prefix: boolean;
    if (bare !== undefined) {
      const stars = /\*+$/.exec(bare)?.[0].length ?? 0;
      text = bare.slice(0, bare.length - stars);
      if (stars > 1 || text.includes("*")) return { problem: "The q field may use * only once, at the end of a word." };
      prefix = stars === 1;
    } else {
      text = phrase!;
      prefix = phraseStar === "*";
      if (text.includes("*")) return { problem: "The q field may use * only at the end of a word or after a closing quote." };
    }
    const words = tokens(text).map((token) => token.word);
    if (words.length === 0) {
      if (prefix) return { problem: "The q field has a * that follows no word." };
      continue; // punctuation alone, or "": nothing to look for
    }
    if (words.length > maxWordsPerClause) return { problem: `The q field may hold at most ${maxWordsPerClause} words in one phrase.` };
    clauses.push({ words, prefix });
  }
  if (clauses.length === 0) return { problem: "The q field must contain a word to search for." };
  if (clauses.length > maxClauses) return { problem: `The q field may hold at most ${maxClauses} words or phrases.` };
  return { clauses };
}
