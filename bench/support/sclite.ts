// Word error rate as NIST's sclite (Debian package sctk) scores it, to check the project's own wordErrorRate
// (src/transcription/wer.ts) against the scorer speech recognition papers report with.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { normalizeForWer, type WerResult } from "../../src/transcription/wer.ts";

/** Whether sclite can be run here (`sctk sclite`). */
export function scliteAvailable(): boolean {
  return Bun.which("sctk") !== null;
}

/** One utterance per line in sclite's `trn` format: the words, then `(speaker_id)`. */
const trn = (pairs: readonly string[]) => pairs.map((text, i) => `${normalizeForWer(text).join(" ")} (utt_${i})`).join("\n");

/** Reads the `Sum` row of sclite's raw summary (counts, not percentages): `| Sum | snt wrd | corr sub del ins err serr |`. */
export function parseRawSummary(report: string): WerResult {
  const row = report.split("\n").find((line) => /^\s*\|\s*Sum\s*\|/.test(line));
  if (!row) throw new Error(`sclite printed no summary:\n${report}`);
  const numbers = row.match(/\d+(?:\.\d+)?/g)!.map(Number);
  const [, words, , substitutions, deletions, insertions, errors] = numbers as [number, number, number, number, number, number, number];
  return { wer: words === 0 ? (errors > 0 ? 1 : 0) : errors / words, errors, referenceWords: words, substitutions, deletions, insertions };
}

/** The WER of hypotheses against references (pairs in order), all utterances together, as sclite counts it. */
export async function scliteWer(references: readonly string[], hypotheses: readonly string[]): Promise<WerResult> {
  const dir = mkdtempSync(join(tmpdir(), "scribe-sclite-"));
  try {
    writeFileSync(join(dir, "ref.trn"), `${trn(references)}\n`);
    writeFileSync(join(dir, "hyp.trn"), `${trn(hypotheses)}\n`);
    const child = Bun.spawn(["sctk", "sclite", "-r", "ref.trn", "trn", "-h", "hyp.trn", "trn", "-i", "rm", "-o", "rsum", "stdout"], {
      cwd: dir,
      stdout: "pipe",
      stderr: "pipe",
    });
    const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`sclite failed (${code}): ${err.trim() || out.trim()}`);
    return parseRawSummary(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
