import { describe, expect, test } from "bun:test";
import { parseQuery } from "../../src/search/query.ts";
import { indexedWords, tokens } from "../../src/search/words.ts";
import { snippet } from "../../src/search/snippet.ts";

const clauses = (q: string) => {
  const parsed = parseQuery(q);
  if ("problem" in parsed) throw new Error(parsed.problem);
  return parsed.clauses;
};

describe("words: one rule for the index, the query and the marks", () => {
  test("letters and digits, folded; punctuation separates; each CJK character is a word", () => {
    expect(indexedWords("Hello, Wörld! It's 2026 — ＡＢＣ café")).toBe("hello world it s 2026 abc cafe");
    expect(indexedWords("東京都に行きました。データ 한국어")).toBe("東 京 都 に 行 き ま し た デ ー タ 한 국 어");
    expect(tokens("a  Bé")).toEqual([
      { word: "a", start: 0, end: 1 },
      { word: "be", start: 3, end: 5 },
    ]);
  });

  test("CJK keeps its voicing marks (テ is not デ), decomposed Latin accents fold like composed ones", () => {
    expect(indexedWords("テ デ")).toBe("テ デ");
    expect(indexedWords("cafe\u0301")).toBe("cafe");
  });
});

describe("parseQuery", () => {
  test("terms, phrases and prefixes become clauses of words; punctuation inside a word makes it a phrase", () => {
    expect(clauses('budget "exact words" transc* "the tran"* e-mail 東京')).toEqual([
      { words: ["budget"], prefix: false },
      { words: ["exact", "words"], prefix: false },
      { words: ["transc"], prefix: true },
      { words: ["the", "tran"], prefix: true },
      { words: ["e", "mail"], prefix: false },
      { words: ["東", "京"], prefix: false },
    ]);
  });

  test("query syntax of the stores is nothing but words and punctuation", () => {
    expect(clauses("NEAR(a b) OR NOT x:y ^z {w}")).toEqual(["near a", "b", "or", "not", "x y", "z", "w"].map((w) => ({ words: w.split(" "), prefix: false })));
    expect(clauses('a - "" ! b')).toEqual([
      { words: ["a"], prefix: false },
      { words: ["b"], prefix: false },
    ]);
  });

  test("malformed input is a problem to report, never a clause", () => {
    const problems = [
      '"',
      '"a',
      'a "b" "',
      "*",
      " * ",
      "**",
      "a**",
      "a*b",
      "*a",
      '"a*"',
      '""*',
      "\u0000",
      "a\u0000",
      "\u001f",
      "\u007f",
      "",
      "  ",
      "!!!",
      "x".repeat(501),
    ];
    for (const q of problems) expect({ q, parsed: "problem" in parseQuery(q) }).toEqual({ q, parsed: true });
    expect("problem" in parseQuery(Array.from({ length: 33 }, (_, i) => `w${i}`).join(" "))).toBe(true);
    expect("problem" in parseQuery(Array.from({ length: 32 }, (_, i) => `w${i}`).join(" "))).toBe(false);
  });

  test("deeply nested or huge input answers at once with a problem or a bounded query", () => {
    expect("problem" in parseQuery("(".repeat(10_000))).toBe(true);
    expect("problem" in parseQuery('"'.repeat(400))).toBe(true); // balanced, but only empty phrases
    expect(clauses(`"${"a ".repeat(64)}"`)[0]!.words.length).toBe(64);
    expect("problem" in parseQuery(`"${"a ".repeat(65)}"`)).toBe(true);
  });
});

describe("snippet", () => {
  test("marks every match, escapes everything else", () => {
    expect(snippet(`Say "<b>hello</b>" & HELLO again`, clauses("hello"))).toBe(
      "Say &quot;&lt;b&gt;<mark>hello</mark>&lt;/b&gt;&quot; &amp; <mark>HELLO</mark> again",
    );
  });

  test("overlapping matches of several clauses make one mark", () => {
    expect(snippet("the big red dog", clauses('"big red" "red dog"'))).toBe("the <mark>big red dog</mark>");
  });

  test("a long segment is cut around the first match, never inside a surrogate pair", () => {
    const text = `${"😀".repeat(200)} target ${"😀".repeat(200)}`;
    const cut = snippet(text, clauses("target"));
    expect(cut).toContain("<mark>target</mark>");
    expect(cut.startsWith("…") && cut.endsWith("…")).toBe(true);
    expect(cut.isWellFormed()).toBe(true);
  });
});
