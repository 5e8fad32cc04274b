import { describe, expect, test } from "bun:test";
import { wordErrorRate } from "../../src/transcription/wer.ts";
import { parseRawSummary, scliteAvailable, scliteWer } from "../../bench/support/sclite.ts";
import { prerequisite } from "../support/prerequisites.ts";

// bench/wer-tuning.bench.ts reports WER by NIST's sclite and by the project's own function: they must count alike.
const pairs: [reference: string, hypothesis: string][] = [
  ["HE HOPED THERE WOULD BE STEW FOR DINNER TURNIPS AND CARROTS", "he hoped there would be stew for dinner or turn up some carrots"],
  ["STUFF IT INTO YOU HIS BELLY COUNSELLED HIM", "stuff it into his belly counsel them"],
  ["And so my fellow Americans, ask not what your country can do for you", "and then our my arm arrow and not what your country can do for you"],
  ["HE COULD WAIT NO LONGER", "he could wait no longer"],
  ["FOR A FULL HOUR HE HAD PACED UP AND DOWN", ""],
  ["DON'T STOP", "don’t stop now please"],
];

describe.skipIf(!prerequisite("sclite", scliteAvailable(), "apt-get install sctk"))("WER scorers", () => {
  test("sclite and wer.ts count the same errors, pair by pair and over all pairs", async () => {
    for (const [reference, hypothesis] of pairs) {
      const ours = wordErrorRate(reference, hypothesis);
      const theirs = await scliteWer([reference], [hypothesis]);
      expect({ errors: theirs.errors, words: theirs.referenceWords }).toEqual({ errors: ours.errors, words: ours.referenceWords });
    }
    const all = await scliteWer(
      pairs.map(([r]) => r),
      pairs.map(([, h]) => h),
    );
    const ours = pairs.map(([r, h]) => wordErrorRate(r, h));
    expect(all.errors).toBe(ours.reduce((sum, r) => sum + r.errors, 0));
    expect(all.referenceWords).toBe(ours.reduce((sum, r) => sum + r.referenceWords, 0));
    expect(all.wer).toBeCloseTo(all.errors / all.referenceWords, 12);
  });
});

test("sclite's raw summary is read by its Sum row", () => {
  const report = [
    "        | SPKR | # Snt # Wrd | Corr    Sub    Del    Ins    Err  S.Err |",
    "        | Sum  |    2     16 |   10      5      1      0      6      2 |",
  ].join("\n");
  expect(parseRawSummary(report)).toEqual({ wer: 6 / 16, errors: 6, referenceWords: 16, substitutions: 5, deletions: 1, insertions: 0 });
  expect(() => parseRawSummary("nothing")).toThrow(/no summary/);
});
