import { createHash } from "node:crypto";
import { mkdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logger } from "../../logging/logger.ts";
import { espeakAvailable, pronounce } from "./sphinx-espeak.ts";
import { extendTrieLanguageModel } from "./sphinx-lm-extension.ts";
import { evictVocabularies, markInUse } from "./sphinx-vocabulary-eviction.ts";
import { vocabularyWords } from "./sphinx-vocabulary-words.ts";

/**
 * A vocabulary word's unigram log10 probability (at least): that of a word seen once in ten thousand. Measured by
 * bench/vocabulary.bench.ts with the decoder's tuned flags (sphinx-decoder.ts: -lw 5, -wip 4): of 28 made-up names
 * in 20 clips, -3 finds 26 (WER 0.174), -4 25 (0.186), -5 24 (0.192), -6 19 (0.262); none without (0.558). A decoy
 * vocabulary of names that sound like words of the LibriSpeech clips, never said, costs nothing at -4 (WER 0.190 with
 * and without) nor at -3 (0.190: both turn the already wrong "that martin" of "fat mutton" into "that mutterton");
 * with -lw 5.5 the same decoy cost -3 a word (0.155 → 0.172) and -4 nothing. A vocabulary that is wrong must cost
 * nothing, so -4, one step from where it began to. Re-measure when the decoder's flags change.
 */
export const vocabularyLog10Probability = -4;
/** Bumped when what is built changes, so a cache of an older release is not used. */
const buildVersion = 1;

export type SphinxModelFiles = { lm: string; dict: string };
/** Files held on disk for as long as their holder uses them; `release` once done. */
export type HeldModelFiles = { files: SphinxModelFiles; release: () => Promise<void> };
export type SphinxVocabularyOptions = SphinxModelFiles & {
  /** Where built vocabularies are kept: the service passes TRANSCRIPTION_TMPDIR's (engines/index.ts). */
  cacheDir?: string;
  espeak?: string;
  /** The vocabulary words' unigram log10 probability (the bench compares a few). */
  log10Probability?: number;
};
/** What a build did, kept beside its files (vocabulary.json) for tests and the bench. */
export type VocabularyReport = { words: string[]; pronounced: Record<string, string>; addedToLm: string[]; skipped: string[] };

const log = logger("transcription");

/**
 * The dictionary and language model PocketSphinx uses for a task's vocabulary: the configured ones with the words it
 * lacks added (pronounced by espeak-ng) and every vocabulary word boosted. Built once per vocabulary and kept in a
 * cache folder (named by a hash of the vocabulary and the model files), so that each chunk's process only reads
 * them: building costs about a second (a copy of the 27 MB model and 3 MB dictionary), loading nothing more than
 * the configured model does. Never fails: on any trouble the configured files are used and a warning is logged.
 */
export class SphinxVocabulary {
  private readonly building = new Map<string, Promise<SphinxModelFiles>>();
  /** How many of this process's recognitions use each vocabulary (by cache key): never evicted while used. */
  private readonly users = new Map<string, number>();
  private readonly cacheDir: string;
  private readonly espeak: string;
  private readonly log10Probability: number;
  private warnedNoEspeak = false;

  constructor(private readonly base: SphinxVocabularyOptions) {
    this.cacheDir = base.cacheDir ?? join(tmpdir(), "scribe-sphinx-vocabulary");
    this.espeak = base.espeak ?? "espeak-ng";
    this.log10Probability = base.log10Probability ?? vocabularyLog10Probability;
  }

  /** The files for a vocabulary, without holding them: for tests and the bench (a recognition uses withModelFiles). */
  modelFiles(vocabulary: readonly string[] | undefined): Promise<SphinxModelFiles> {
    return this.withModelFiles(vocabulary, async (files) => files);
  }

  /** The files for a vocabulary, kept on disk while `run` uses them: no eviction, of any process, removes them meanwhile. */
  async withModelFiles<T>(vocabulary: readonly string[] | undefined, run: (files: SphinxModelFiles) => Promise<T>): Promise<T> {
    const held = await this.holdModelFiles(vocabulary);
    try {
      return await run(held.files);
    } finally {
      await held.release();
    }
  }

  /**
   * The files for a vocabulary, kept on disk until `release` is called: for a holder whose use outlives one callback
   * (a live session's decoder, held for the session). Never fails: without them, the configured files.
   */
  async holdModelFiles(vocabulary: readonly string[] | undefined): Promise<HeldModelFiles> {
    const words = vocabularyWords(vocabulary ?? []);
    const configured = { files: { lm: this.base.lm, dict: this.base.dict }, release: async () => {} };
    if (words.length === 0) return configured;
    const held = await this.hold(words).catch((error: unknown) => {
      log.warn({ err: error }, "the task's vocabulary could not be added to PocketSphinx's model: recognised without it");
      return null;
    });
    return held ?? configured;
  }

  /**
   * Finds or builds the vocabulary's files and marks them in use (in memory for this process, by a file in the folder
   * for the others). A folder another process removed between finding it and marking it is built again.
   */
  private async hold(words: string[]): Promise<{ files: SphinxModelFiles; release: () => Promise<void> }> {
    const key = await this.cacheKey(words);
    this.users.set(key, (this.users.get(key) ?? 0) + 1);
    const unhold = () => {
      const left = (this.users.get(key) ?? 1) - 1;
      if (left > 0) this.users.set(key, left);
      else this.users.delete(key);
    };
    try {
      for (let tries = 1; ; tries++) {
        const files = await this.builtOnce(key, words);
        const unmark = await markInUse(join(this.cacheDir, key)).catch(() => null);
        if (unmark && (await stat(join(this.cacheDir, key, "vocabulary.json")).catch(() => null))) return { files, release: () => unmark().finally(unhold) };
        await unmark?.();
        if (tries === 3) throw new Error("the vocabulary's folder was removed each time it was built");
      }
    } catch (error) {
      unhold();
      throw error;
    }
  }

  /** One build per vocabulary, however many chunks ask at once. */
  private builtOnce(key: string, words: string[]): Promise<SphinxModelFiles> {
    let pending = this.building.get(key);
    if (!pending) {
      pending = this.builtOrBuild(key, words).finally(() => this.building.delete(key));
      this.building.set(key, pending);
    }
    return pending;
  }

  /** The files' identity (path, size, time) and espeak-ng's presence are in the key: a new model or espeak-ng rebuilds. */
  private async cacheKey(words: string[]): Promise<string> {
    const [lm, dict] = await Promise.all([stat(this.base.lm), stat(this.base.dict)]);
    const hasEspeak = espeakAvailable(this.espeak);
    if (!hasEspeak && !this.warnedNoEspeak) {
      this.warnedNoEspeak = true;
      log.warn(`${this.espeak} is not installed: vocabulary words missing from PocketSphinx's dictionary are ignored`);
    }
    const identity = [buildVersion, this.log10Probability, hasEspeak, this.base.lm, lm.size, lm.mtimeMs, this.base.dict, dict.size, dict.mtimeMs];
    return createHash("sha256")
      .update(JSON.stringify([identity, [...words].sort()]))
      .digest("hex")
      .slice(0, 32);
  }

  private async builtOrBuild(key: string, words: string[]): Promise<SphinxModelFiles> {
    const dir = join(this.cacheDir, key);
    const files = { lm: join(dir, "lm.bin"), dict: join(dir, "dict") };
    const built = await stat(join(dir, "vocabulary.json")).catch(() => null);
    if (built) {
      const now = new Date();
      await utimes(dir, now, now).catch(() => {});
      return files;
    }
    const started = performance.now();
    const building = join(this.cacheDir, `${key}.building-${process.pid}-${Math.random().toString(36).slice(2)}`);
    await mkdir(building, { recursive: true });
    try {
      const report = await this.build(words, building);
      // The rename makes the folder appear whole; another process that built the same vocabulary first wins.
      await rename(building, dir).catch(async (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
      });
      log.info(
        { words: words.length, pronounced: Object.keys(report.pronounced).length, skipped: report.skipped, ms: Math.round(performance.now() - started) },
        "vocabulary added to PocketSphinx's model",
      );
    } finally {
      await rm(building, { recursive: true, force: true });
    }
    await evictVocabularies(this.cacheDir, (name) => this.users.has(name));
    return files;
  }

  private async build(words: string[], into: string): Promise<VocabularyReport> {
    const [dictText, lmBytes] = await Promise.all([readFile(this.base.dict, "utf8"), readFile(this.base.lm)]);
    const known = dictionaryWords(dictText);
    const unknown = words.filter((word) => !known.has(word));
    const { phones } = await pronounce(this.espeak, unknown);
    const usable = words.filter((word) => known.has(word) || phones.has(word));
    const lines = [...phones].map(([word, p]) => `${word} ${p.join(" ")}`);
    const lm = extendTrieLanguageModel(
      lmBytes,
      usable.map((word) => ({ word, log10Probability: this.log10Probability })),
    );
    const report: VocabularyReport = {
      words,
      pronounced: Object.fromEntries([...phones].map(([word, p]) => [word, p.join(" ")])),
      addedToLm: usable,
      skipped: words.filter((word) => !usable.includes(word)),
    };
    const separator = dictText.endsWith("\n") || dictText === "" ? "" : "\n";
    await Promise.all([
      writeFile(join(into, "dict"), `${dictText}${separator}${lines.map((line) => `${line}\n`).join("")}`),
      writeFile(join(into, "lm.bin"), lm),
    ]);
    await writeFile(join(into, "vocabulary.json"), JSON.stringify(report));
    return report;
  }
}

/** The head words of a PocketSphinx dictionary (`word PH PH`, alternatives written `word(2)`). */
export function dictionaryWords(text: string): Set<string> {
  const words = new Set<string>();
  for (const line of text.split("\n")) {
    const head = line.slice(0, line.search(/\s/) === -1 ? line.length : line.search(/\s/));
    if (head) words.add(head.replace(/\(\d+\)$/, ""));
  }
  return words;
}
