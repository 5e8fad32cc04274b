/**
 * The text index on MongoDB: a compound text index `{ <scope>: 1, <field>: "text" }` with language "none"
 * (no stemming, no stop words: the words were folded by the caller), queried with `$text`.
 *
 * `$text` alone cannot say what the port promises: it ORs bare terms, has no prefix queries, and matches a
 * phrase as a substring. So every clause is also a `$regex` on the field, which holds single-space separated
 * words: `(^| )w1 w2( |$)`, the trailing boundary left out for a prefix. `$text` narrows the candidates
 * through the index and ranks them (textScore, ties by `_id`) when at least one clause is a whole phrase
 * (phrases in `$search` are ANDed); a query of prefix clauses only is the regexes over the scope's
 * documents, unranked (score 0, in `_id` order). Not run here: no MongoDB on the build machines.
 */
import type { Document as MongoDocument } from "mongodb";
import type { Scalar, TextClause } from "./port.ts";

const WORD = /^[\p{L}\p{N}]+$/u;

export function textIndexKeys(index: { scope: string; field: string }): { text: MongoDocument; scope: MongoDocument } {
  return { text: { [index.scope]: 1, [index.field]: "text" }, scope: { [index.scope]: 1 } };
}

export function textQuery(index: { scope: string; field: string }, scope: Scalar, clauses: readonly TextClause[]): { filter: MongoDocument; ranked: boolean } {
  if (clauses.length === 0) throw new TypeError("a text query needs at least one clause");
  for (const clause of clauses) {
    if (clause.words.length === 0) throw new TypeError("a text clause needs at least one word");
    for (const word of clause.words) if (!WORD.test(word)) throw new TypeError(`not a word for a text query: ${JSON.stringify(word)}`);
  }
  // Words are letters and digits only: nothing in them means anything to a regular expression.
  const regexes = clauses.map((clause) => ({ [index.field]: { $regex: `(?:^| )${clause.words.join(" ")}${clause.prefix ? "" : "(?: |$)"}` } }));
  const phrases = clauses.filter((clause) => !clause.prefix).map((clause) => `"${clause.words.join(" ")}"`);
  const filter: MongoDocument = { [index.scope]: scope, $and: regexes };
  if (phrases.length > 0) filter.$text = { $search: phrases.join(" "), $language: "none" };
  return { filter, ranked: phrases.length > 0 };
}
