/** Word error rate, as speech recognition is usually scored: (substitutions + deletions + insertions) / reference words. */

/** Upper case, apostrophes kept, other punctuation dropped (LibriSpeech's reference style). */
export function normalizeForWer(text: string): string[] {
  return text
    .toUpperCase()
    .replace(/[’‘]/g, "'")
    .replace(/[^\p{L}\p{N}'\s]/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
}

export type WerResult = { wer: number; errors: number; referenceWords: number; substitutions: number; deletions: number; insertions: number };

/** Levenshtein alignment over words. */
export function wordErrorRate(reference: string, hypothesis: string): WerResult {
  const ref = normalizeForWer(reference);
  const hyp = normalizeForWer(hypothesis);
  // cost[j] and the operations behind it, row by row.
  type Cell = { cost: number; s: number; d: number; i: number };
  let previous: Cell[] = Array.from({ length: hyp.length + 1 }, (_, j) => ({ cost: j, s: 0, d: 0, i: j }));
  for (let r = 1; r <= ref.length; r++) {
    const row: Cell[] = [{ cost: r, s: 0, d: r, i: 0 }];
    for (let h = 1; h <= hyp.length; h++) {
      const same = ref[r - 1] === hyp[h - 1];
      const diagonal = previous[h - 1]!;
      const up = previous[h]!;
      const left = row[h - 1]!;
      const options: Cell[] = [
        { ...diagonal, cost: diagonal.cost + (same ? 0 : 1), s: diagonal.s + (same ? 0 : 1) },
        { ...up, cost: up.cost + 1, d: up.d + 1 },
        { ...left, cost: left.cost + 1, i: left.i + 1 },
      ];
      row.push(options.reduce((best, o) => (o.cost < best.cost ? o : best)));
    }
    previous = row;
  }
  const last = previous[hyp.length]!;
  return {
    wer: ref.length === 0 ? (hyp.length === 0 ? 0 : 1) : last.cost / ref.length,
    errors: last.cost,
    referenceWords: ref.length,
    substitutions: last.s,
    deletions: last.d,
    insertions: last.i,
  };
}
