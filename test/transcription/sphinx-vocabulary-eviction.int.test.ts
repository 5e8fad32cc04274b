// Where PocketSphinx's vocabularies are built and how many stay: under TRANSCRIPTION_TMPDIR, never more than
// maxKeptVocabularies however recent (the least recently used go first), and never one a recognition is using.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadTranscriptionConfig } from "../../src/transcription/config.ts";
import { createEngine } from "../../src/transcription/engines/index.ts";
import { SphinxVocabulary } from "../../src/transcription/engines/sphinx-vocabulary.ts";
import { maxKeptVocabularies } from "../../src/transcription/engines/sphinx-vocabulary-eviction.ts";
import { prerequisite } from "../support/prerequisites.ts";

const model = "/usr/share/pocketsphinx/model/en-us";
const base = { lm: `${model}/en-us.lm.bin`, dict: `${model}/cmudict-en-us.dict` };
const hasSphinx = prerequisite(
  "PocketSphinx and its en-us model",
  existsSync(base.lm) && Bun.which("pocketsphinx_continuous") !== null,
  "apt-get install pocketsphinx pocketsphinx-en-us",
);
const work = mkdtempSync(join(tmpdir(), "scribe-vocabulary-eviction-test-"));
const sleeper = Bun.spawn(["sleep", "120"]);
afterAll(() => {
  sleeper.kill();
  rmSync(work, { recursive: true, force: true });
});
const built = (dir: string) => readdirSync(dir).filter((name) => /^[0-9a-f]{32}$/.test(name));
const folderOf = (files: { lm: string }) => files.lm.split("/").at(-2)!;

describe.skipIf(!hasSphinx)("PocketSphinx's built vocabularies", () => {
  test("never more than maxKeptVocabularies on disk, however recent; least recently used first; never one in use", async () => {
    const cacheDir = join(work, "capped");
    // Vocabularies used in the last minute (the newest first), as many as the limit: a burst of distinct vocabularies.
    const recent = Array.from({ length: maxKeptVocabularies }, (_, i) => `${"c".repeat(30)}${i.toString(16).padStart(2, "0")}`);
    for (const [i, name] of recent.entries()) {
      mkdirSync(join(cacheDir, name), { recursive: true });
      utimesSync(join(cacheDir, name), new Date(Date.now() - (i + 1) * 1000), new Date(Date.now() - (i + 1) * 1000));
    }
    // The least recently used is being read by another worker process's chunk (its marker names a running pid); the
    // next one's marker names a process that has died, and means nothing.
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    const [otherProcesses, deadMarker] = [recent.at(-1)!, recent.at(-2)!];
    writeFileSync(join(cacheDir, otherProcesses, `in-use-${sleeper.pid}-1`), "");
    writeFileSync(join(cacheDir, deadMarker, `in-use-${dead.pid}-1`), "");
    for (const name of [otherProcesses, deadMarker]) utimesSync(join(cacheDir, name), new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));

    const vocabulary = new SphinxVocabulary({ ...base, cacheDir });
    const names = ["Ostravik", "Quenbury", "Marisandra"];
    const kept = await vocabulary.withModelFiles(["Zorbalind"], async (held) => {
      // This process's own recognition holds a vocabulary it has not touched for an hour while three more are built.
      const hourAgo = new Date(Date.now() - 3600_000);
      utimesSync(join(cacheDir, folderOf(held)), hourAgo, hourAgo);
      const made: string[] = [];
      for (const name of names) {
        made.push(folderOf(await vocabulary.modelFiles([name])));
        expect(built(cacheDir).length).toBeLessThanOrEqual(maxKeptVocabularies);
      }
      expect(existsSync(held.lm) && existsSync(held.dict)).toBe(true);
      return { held: folderOf(held), made };
    });
    const left = built(cacheDir);
    expect(left).toHaveLength(maxKeptVocabularies);
    expect(left).toContain(kept.held);
    expect(left).toContain(otherProcesses);
    expect(left).not.toContain(deadMarker);
    for (const name of kept.made) expect(left).toContain(name);
    // The rest are the most recently used of the burst: those removed were its oldest.
    const burstLeft = maxKeptVocabularies - 2 - kept.made.length;
    expect(left.filter((name) => recent.includes(name) && name !== otherProcesses).sort()).toEqual(recent.slice(0, burstLeft).sort());
    // Once released, its marker is gone: another process's eviction may remove it again.
    expect(readdirSync(join(cacheDir, kept.held)).filter((name) => name.startsWith("in-use-"))).toEqual([]);
  }, 60_000);

  test("the service builds them under TRANSCRIPTION_TMPDIR", async () => {
    const tempDir = join(work, "transcription-tmp");
    mkdirSync(tempDir);
    const config = loadTranscriptionConfig({ TRANSCRIPTION_TMPDIR: tempDir, SPHINX_LM: base.lm, SPHINX_DICT: base.dict }, (m) => new Error(m));
    const wav = join(work, "silence.wav");
    await Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "anullsrc=r=16000:cl=mono", "-t", "1", wav]).exited;
    await createEngine(config, "sphinx").recognize(wav, { durationMs: 1000, vocabulary: ["Glimmerfax"] });
    expect(built(join(tempDir, "sphinx-vocabulary"))).toHaveLength(1);
  }, 60_000);
});
