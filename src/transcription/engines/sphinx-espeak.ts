import { diesWithParent } from "../../core/child-process.ts";
import { espeakToCmu } from "./sphinx-pronunciation.ts";

/** Past this a word is left without a pronunciation: espeak-ng answers a word in milliseconds. */
const timeoutMs = 5_000;
/** Words pronounced at once: each is a short espeak-ng process, and a vocabulary is built once, then cached. */
const concurrency = 4;

export type Pronunciations = {
  /** word → CMU phones, for the words espeak-ng could pronounce with phones the model knows. */
  phones: Map<string, string[]>;
  /** False when espeak-ng is not installed: then no word is pronounced. */
  available: boolean;
};

/** Whether espeak-ng can be started (a program name found on PATH, or a path to one). */
export function espeakAvailable(binary: string): boolean {
  return Bun.which(binary) !== null;
}

/**
 * espeak-ng's en-us phonemes for one word (`-x`: ASCII mnemonics; `--sep=_` between phonemes, so that
 * two-letter phonemes read unambiguously), or null when it fails. One process per word: given several words
 * on standard input, espeak-ng may join or split lines, and a word's phonemes must not land on another.
 */
async function espeakWord(binary: string, word: string): Promise<string | null> {
  try {
    const child = Bun.spawn(diesWithParent([binary, "-q", "-x", "--sep=_", "-v", "en-us", word]), {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      timeout: timeoutMs,
    });
    const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    return code === 0 ? stdout : null;
  } catch {
    return null;
  }
}

/** CMU pronunciations for `words` (already normalised by vocabularyWords: no word starts with "-"). */
export async function pronounce(binary: string, words: readonly string[]): Promise<Pronunciations> {
  const phones = new Map<string, string[]>();
  if (words.length === 0) return { phones, available: true };
  if (!espeakAvailable(binary)) return { phones, available: false };
  let next = 0;
  const worker = async () => {
    while (next < words.length) {
      const word = words[next++]!;
      const output = await espeakWord(binary, word);
      const mapped = output === null ? null : espeakToCmu(output);
      if (mapped) phones.set(word, mapped);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, words.length) }, worker));
  return { phones, available: true };
}
