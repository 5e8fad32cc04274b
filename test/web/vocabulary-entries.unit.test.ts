import { describe, expect, test } from "bun:test";
import { readVocabulary } from "../../src/web/app/upload/vocabulary-entries.ts";

describe("the upload form's Vocabulary field", () => {
  test("one entry per line or between commas: trimmed, spaces joined, blanks and repeats (ignoring case) left out", () => {
    expect(readVocabulary(" Zorbalind \r\nQuexley   contract, Ada\tLovelace,,\n\nzorbalind\nADA LOVELACE")).toEqual({
      entries: ["Zorbalind", "Quexley contract", "Ada Lovelace"],
      problem: null,
    });
    expect(readVocabulary("")).toEqual({ entries: [], problem: null });
    expect(readVocabulary("__proto__, constructor").entries).toEqual(["__proto__", "constructor"]);
  });

  test("100 entries of 100 characters pass; one more entry, or one more character, is refused in words", () => {
    const hundred = Array.from({ length: 100 }, (_, i) => `${i}`.padEnd(100, "x"));
    expect(readVocabulary(hundred.join("\n"))).toMatchObject({ problem: null });
    expect(readVocabulary([...hundred, "one more"].join("\n")).problem).toStartWith("The vocabulary has 101 entries; at most 100 can be given.");
    expect(readVocabulary(`fine\n${"y".repeat(101)}`).problem).toBe(
      `“${"y".repeat(30)}…” is 101 characters long; each word or phrase can be at most 100 characters.`,
    );
  });

  test("control characters never reach the API: taken as spaces", () => {
    expect(readVocabulary("tab\there\u0000nul\u007f").entries).toEqual(["tab here nul"]);
  });
});
