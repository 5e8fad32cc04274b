import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { logger } from "../../logging/logger.ts";
import { espeakAvailable, pronounce } from "./sphinx-espeak.ts";
import { extendTrieLanguageModel } from "./sphinx-lm-extension.ts";
import { vocabularyWords } from "./sphinx-vocabulary-words.ts";

/**
 * A vocabulary word's unigram log10 probability (at least): that of a word seen once in ten thousand. Measured by
 * bench/vocabulary.bench.ts with the decoder's tuned flags (sphinx-decoder.ts: -lw 5.5, -wip 4): of 28 made-up names
 * in 20 clips, -3 finds 27, -4 26, -5 24; but at -3 a vocabulary of names that sound like words of the LibriSpeech
 * clips, never said, replaces one ("fat mutton" became "that mutterton": WER 0.155 → 0.172), and at -4 it changes
 * nothing. A vocabulary that is wrong must cost nothing, so -4. Re-measure when the decoder's flags change.
 */
export const vocabularyLog10Probability = -4;
/**
 * Vocabularies kept built (30 MB each): the most recently used; older ones are removed once unused for ten minutes. A
 * chunk asks for its files just before its process starts (and that touches the folder), and a process that has
 * opened them keeps reading them even once removed, so ten minutes is far more than a chunk ever waits.
 */
const keptVocabularies = 8;
const keptUnusedMs = 600_000;
/** Bumped when what is built changes, so a cache of an older release is not used. */
const buildVersion = 1;

export type SphinxModelFiles = { lm: string; dict: string };
export type SphinxVocabularyOptions = SphinxModelFiles & {
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
  private readonly cacheDir: string;
  private readonly espeak: string;
  private readonly log10Probability: number;
  private warnedNoEspeak = false;

  constructor(private readonly base: SphinxVocabularyOptions) {
    this.cacheDir = base.cacheDir ?? join(tmpdir(), "scribe-sphinx-vocabulary");
    this.espeak = base.espeak ?? "espeak-ng";
    this.log10Probability = base.log10Probability ?? vocabularyLog10Probability;
  }

  async modelFiles(vocabulary: readonly string[] | undefined): Promise<SphinxModelFiles> {
    const words = vocabularyWords(vocabulary ?? []);
    if (words.length === 0) return { lm: this.base.lm, dict: this.base.dict };
    try {
      const key = await this.cacheKey(words);
      let pending = this.building.get(key);
      if (!pending) {
        pending = this.builtOrBuild(key, words).finally(() => this.building.delete(key));
        this.building.set(key, pending);
      }
      return await pending;
    } catch (error) {
      log.warn({ err: error }, "the task's vocabulary could not be added to PocketSphinx's model: recognised without it");
      return { lm: this.base.lm, dict: this.base.dict };
    }
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
    await this.evictOld(key);
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

  /** Keeps the most recently used vocabularies, and any used in the last ten minutes (a chunk may be about to read it). */
  private async evictOld(current: string): Promise<void> {
    const names = await readdir(this.cacheDir).catch(() => [] as string[]);
    const dirs = await Promise.all(
      names.filter((name) => name !== current).map(async (name) => ({ name, info: await stat(join(this.cacheDir, name)).catch(() => null) })),
    );
    const old = (d: (typeof dirs)[number]) => d.info !== null && Date.now() - d.info.mtimeMs > keptUnusedMs;
    // Half-built folders of a process that died while building.
    const stale = dirs.filter((d) => d.name.includes(".building-") && old(d));
    const byUse = dirs.filter((d) => /^[0-9a-f]{32}$/.test(d.name) && d.info !== null).sort((a, b) => b.info!.mtimeMs - a.info!.mtimeMs);
    for (const { name } of [...stale, ...byUse.slice(keptVocabularies - 1).filter(old)]) await rm(join(this.cacheDir, name), { recursive: true, force: true });
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
