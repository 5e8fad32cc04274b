// A task's vocabulary with PocketSphinx, end to end: espeak-ng pronounces the words its dictionary lacks, the words go
// into a copy of its language model, and pocketsphinx_continuous finds a made-up name it could not find without them.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SphinxEngine } from "../../src/transcription/engines/sphinx.ts";
import { readTrieLanguageModel } from "../../src/transcription/engines/sphinx-lm-extension.ts";
import { dictionaryWords, SphinxVocabulary, type VocabularyReport } from "../../src/transcription/engines/sphinx-vocabulary.ts";
import { fliteAvailable, namedSentences, speakWithFlite } from "../support/named-speech.ts";
import { prerequisite } from "../support/prerequisites.ts";

const model = "/usr/share/pocketsphinx/model/en-us";
const base = { binary: "pocketsphinx_continuous", hmm: `${model}/en-us`, lm: `${model}/en-us.lm.bin`, dict: `${model}/cmudict-en-us.dict` };
const hasSphinx = prerequisite(
  "PocketSphinx and its en-us model",
  existsSync(base.lm) && Bun.which(base.binary) !== null,
  "apt-get install pocketsphinx pocketsphinx-en-us",
);
const hasEspeak = prerequisite("espeak-ng", Bun.which("espeak-ng") !== null, "apt-get install espeak-ng, or npm test");
const hasFlite = prerequisite("flite", fliteAvailable(), "apt-get install flite, or npm test");
const work = mkdtempSync(join(tmpdir(), "scribe-vocabulary-test-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const report = (files: { dict: string }): VocabularyReport => JSON.parse(readFileSync(join(files.dict, "..", "vocabulary.json"), "utf8"));

describe.skipIf(!hasSphinx || !hasEspeak)("PocketSphinx learns a task's vocabulary", () => {
  test.skipIf(!hasFlite)(
    "a name outside the dictionary is recognised with the vocabulary, and not without",
    async () => {
      const [sentence] = namedSentences;
      const wav = await speakWithFlite(sentence!.text, "rms", work, "named");
      const cacheDir = join(work, "engine-cache");
      const engine = new SphinxEngine({ ...base, vocabularyCacheDir: cacheDir });
      const text = async (vocabulary?: string[]) => (await engine.recognize(wav, { durationMs: 0, vocabulary })).words.map((w) => w.text).join(" ");
      const without = await text();
      const withIt = await text(["Zorbalind", "Quexley contract"]);
      console.log(`without: ${without}\nwith:    ${withIt}`);
      expect(without).not.toContain("zorbalind");
      expect(withIt).toContain("zorbalind");
      expect(withIt).toContain("quexley");
      // The files that process read hold the names.
      const files = await new SphinxVocabulary({ ...base, cacheDir }).modelFiles(["Zorbalind", "Quexley contract"]);
      expect(readFileSync(files.dict, "utf8")).toContain("\nzorbalind Z AO R B AH L IH N D\n");
      expect(readTrieLanguageModel(new Uint8Array(readFileSync(files.lm))).words).toContain("quexley");
    },
    60_000,
  );

  test("50 dictionary words taken out of the dictionary are pronounced again close to cmudict's own", async () => {
    const text = readFileSync(base.dict, "utf8");
    const entries = new Map<string, string[]>();
    for (const line of text.split("\n")) {
      const [head, ...phones] = line.trim().split(/\s+/);
      if (head) entries.set(head.replace(/\(\d+\)$/, ""), [...(entries.get(head.replace(/\(\d+\)$/, "")) ?? []), phones.join(" ")]);
    }
    const plain = [...entries.keys()].filter((w) => /^[a-z]{4,}$/.test(w));
    const chosen = Array.from({ length: 50 }, (_, i) => plain[Math.floor(((i + 0.5) * plain.length) / 50)]!);
    const without = join(work, "without.dict");
    writeFileSync(
      without,
      text
        .split("\n")
        .filter((line) => !chosen.includes(line.split(" ")[0]!.replace(/\(\d+\)$/, "")))
        .join("\n"),
    );
    const files = await new SphinxVocabulary({ lm: base.lm, dict: without, cacheDir: join(work, "round-trip") }).modelFiles(chosen);
    const { pronounced } = report(files);
    let exact = 0;
    let errors = 0;
    let phones = 0;
    for (const word of chosen) {
      const made = (pronounced[word] ?? "").split(" ").filter(Boolean);
      const best = Math.min(...entries.get(word)!.map((ref) => editDistance(made, ref.split(" "))));
      const ref = entries
        .get(word)!
        .find((r) => editDistance(made, r.split(" ")) === best)!
        .split(" ");
      if (best === 0) exact++;
      errors += best;
      phones += ref.length;
    }
    console.log(`pronunciations made again: ${exact}/50 exactly cmudict's, phone error rate ${(errors / phones).toFixed(3)}`);
    expect(Object.keys(pronounced)).toHaveLength(50);
    expect(exact).toBeGreaterThanOrEqual(20);
    expect(errors / phones).toBeLessThan(0.2);
  }, 60_000);

  test("hostile vocabularies never fail recognition: what cannot be pronounced is left out", async () => {
    const cacheDir = join(work, "hostile");
    const vocabulary = ["Москва", "東京", "x".repeat(10_000), "__proto__", "<s>", "[noise]", "\u0000", "🙂", "Zorbalind", "ZORBALIND", "a-", "'"];
    const files = await new SphinxVocabulary({ ...base, cacheDir }).modelFiles(vocabulary);
    expect(report(files).words).toEqual(["proto", "s", "noise", "zorbalind", "a"]);
    const wav = join(work, "silence.wav");
    await Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "1", wav]).exited;
    const engine = new SphinxEngine({ ...base, vocabularyCacheDir: cacheDir });
    await engine.recognize(wav, { durationMs: 1000, vocabulary });
    await engine.recognize(wav, { durationMs: 1000, vocabulary: Array.from({ length: 500 }, (_, i) => `Qzx${i}`) });
  }, 60_000);

  test("built once per vocabulary, however many chunks ask at once; found again without building, in any order or case", async () => {
    const cacheDir = join(work, "once");
    const vocabulary = new SphinxVocabulary({ ...base, cacheDir });
    const asked = await Promise.all(Array.from({ length: 8 }, () => vocabulary.modelFiles(["Glimmerfax", "Marisandra"])));
    expect(new Set(asked.map((f) => f.lm)).size).toBe(1);
    expect(readdirSync(cacheDir)).toHaveLength(1);
    const builtAt = statSync(asked[0]!.lm).mtimeMs;
    const again = await new SphinxVocabulary({ ...base, cacheDir }).modelFiles(["MARISANDRA", "glimmerfax", "Glimmerfax"]);
    expect(again).toEqual(asked[0]!);
    expect(statSync(again.lm).mtimeMs).toBe(builtAt);
    expect(await vocabulary.modelFiles([])).toEqual({ lm: base.lm, dict: base.dict });
  }, 60_000);

  test("keeps the 8 most recently used vocabularies, and removes older ones once unused for ten minutes", async () => {
    const cacheDir = join(work, "evicted");
    const hourAgo = new Date(Date.now() - 3600_000);
    const folder = (name: string, at: Date) => {
      mkdirSync(join(cacheDir, name), { recursive: true });
      utimesSync(join(cacheDir, name), at, at);
    };
    const old = Array.from({ length: 10 }, (_, i) => `${"a".repeat(31)}${i}`);
    for (const [i, name] of old.entries()) folder(name, new Date(hourAgo.getTime() + i * 1000));
    folder("f".repeat(32), new Date());
    folder(`${"b".repeat(32)}.building-1-x`, hourAgo);
    folder("not-ours", hourAgo);
    const files = await new SphinxVocabulary({ ...base, cacheDir }).modelFiles(["Ostravik"]);
    const kept = readdirSync(cacheDir).sort();
    expect(kept).toEqual([...old.slice(4), "f".repeat(32), files.lm.split("/").at(-2)!, "not-ours"].sort());
  }, 60_000);

  test("without espeak-ng, words the dictionary lacks are skipped and the others still boosted", async () => {
    const known = dictionaryWords(readFileSync(base.dict, "utf8"));
    const inLm = new Set(readTrieLanguageModel(new Uint8Array(readFileSync(base.lm))).words);
    const dictionaryOnly = [...known].find((w) => /^[a-z]{5,}$/.test(w) && !inLm.has(w))!;
    const files = await new SphinxVocabulary({ ...base, cacheDir: join(work, "no-espeak"), espeak: join(work, "no-such-espeak") }).modelFiles([
      "Zorbalind",
      dictionaryOnly,
    ]);
    expect(report(files)).toMatchObject({ addedToLm: [dictionaryOnly], skipped: ["zorbalind"], pronounced: {} });
  }, 60_000);

  test("a model it cannot extend leaves the configured files in use", async () => {
    const notTrie = join(work, "arpa.lm");
    writeFileSync(notTrie, "\\data\\\nngram 1=1\n\n\\1-grams:\n-1.0 hello\n\n\\end\\\n");
    const vocabulary = new SphinxVocabulary({ lm: notTrie, dict: base.dict, cacheDir: join(work, "broken") });
    expect(await vocabulary.modelFiles(["Zorbalind"])).toEqual({ lm: notTrie, dict: base.dict });
    const missing = new SphinxVocabulary({ lm: join(work, "none.bin"), dict: base.dict, cacheDir: join(work, "broken") });
    expect(await missing.modelFiles(["Zorbalind"])).toEqual({ lm: join(work, "none.bin"), dict: base.dict });
  }, 60_000);
});

function editDistance(a: string[], b: string[]): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row.push(Math.min(previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), previous[j]! + 1, row[j - 1]! + 1));
    previous = row;
  }
  return previous[b.length]!;
}
