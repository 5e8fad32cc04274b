/**
 * How transcript text becomes searchable words, one rule for the index and for the query (and for marking
 * matches in snippets), so the two always agree whichever store answers.
 *
 * A word is a run of letters and digits, folded: compatibility forms unified (NFKC: full-width Latin is
 * Latin), lower-cased, accents dropped outside CJK (café finds cafe). Chinese, Japanese and Korean are
 * written without spaces between words, so each of their characters is a word of its own, and a query
 * in them becomes a phrase of its characters: 東京 finds 東京都 and 東京 alone, which a trigram index would
 * miss (two characters are shorter than a trigram), while Latin words keep word semantics for phrases
 * and prefixes.
 */

const CJK = "\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Hangul}\\p{sc=Bopomofo}";
/** One CJK character (with its combining marks), or a run of other letters, digits and marks. */
const TOKEN = new RegExp(`[${CJK}]\\p{M}*|(?:(?![${CJK}])[\\p{L}\\p{N}\\p{M}])+`, "gu");
const IS_CJK = new RegExp(`^[${CJK}]`, "u");
const NOT_WORD = /[^\p{L}\p{N}]/gu;

export type Token = { word: string; start: number; end: number };

/** Folds one token; CJK keeps its marks (テ and デ are different syllables). Empty when nothing is left. */
export function fold(token: string): string {
  const folded = IS_CJK.test(token) ? token.normalize("NFKC").toLowerCase() : token.normalize("NFKD").replace(/\p{M}/gu, "").normalize("NFKC").toLowerCase();
  return folded.replace(NOT_WORD, "");
}

/** The words of `text` with where each stands in it (UTF-16 offsets), in order. */
export function tokens(text: string): Token[] {
  const found: Token[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const word = fold(match[0]);
    if (word !== "") found.push({ word, start: match.index, end: match.index + match[0].length });
  }
  return found;
}

const NOT_ASCII = /[^\x00-\x7f]/;
const ASCII_WORD = /[a-z0-9]+/g;

/** What a text index holds for `text`: its words separated by single spaces (see TextClause in the read-model port). */
export function indexedWords(text: string): string {
  // ASCII text (most transcripts) folds to itself but for case, and its words are its runs of letters and
  // digits: one lower-casing and one match instead of four normalisations per word. 2.1 to 4.1 µs instead of
  // 15 to 20 µs for a 200-character segment (two runs of 100,000 on 2 busy shared cores), the most of what
  // indexing a 100,000-segment transcript cost in JS.
  if (!NOT_ASCII.test(text)) return text.toLowerCase().match(ASCII_WORD)?.join(" ") ?? "";
  return tokens(text)
    .map((token) => token.word)
    .join(" ");
}

/**
 * Each word of `words` (indexedWords) joined to the next by `_`, separated by single spaces: `a b c` is
 * `a_b b_c`; empty for fewer than two words. A text index matches phrases on these (embedded-text.ts): built
 * here, in one pass over the words, because pairing them in the index's SQL triggers cost ~33 µs a segment.
 */
export function wordPairs(words: string): string {
  let pairs = "";
  let from = 0;
  let space = words.indexOf(" ");
  while (space !== -1) {
    const next = words.indexOf(" ", space + 1);
    const pair = words.slice(from, next === -1 ? words.length : next);
    pairs += (pairs === "" ? "" : " ") + pair.replace(" ", "_");
    from = space + 1;
    space = next;
  }
  return pairs;
}
