// A task's vocabulary with PocketSphinx: sentences whose made-up names are in neither its dictionary nor its language
// model (test/support/named-speech.ts), spoken by flite's voices, recognised without a vocabulary, with the sentence's
// names as its vocabulary, and with a decoy vocabulary (the other sentences' names, not spoken: what a vocabulary costs
// when its words are not said), and the LibriSpeech clips of ../shared/testdata with a decoy vocabulary of names that
// sound like their words. Prints each transcript, WER and names found; then what building a vocabulary costs (once per
// vocabulary) and whether its model loads slower in each chunk's process (one short chunk with the configured model
// and with a vocabulary's, three of each in turns). In full mode it also compares a few unigram boosts.
// `bun bench/vocabulary.bench.ts`; skipped without flite or PocketSphinx.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SphinxEngine } from "../src/transcription/engines/sphinx.ts";
import { dictionaryWords, SphinxVocabulary, vocabularyLog10Probability } from "../src/transcription/engines/sphinx-vocabulary.ts";
import { normalizeForWer, wordErrorRate } from "../src/transcription/wer.ts";
import { fliteAvailable, fliteVoices, namedSentences, speakWithFlite } from "../test/support/named-speech.ts";
import { figure, skip } from "./support/figures.ts";
import { inTurns } from "./support/in-turns.ts";
import { sized } from "./support/quick.ts";
import { librispeechDir } from "./support/long-recording.ts";

if (!fliteAvailable()) skip("flite is missing (apt-get install flite, or npm run bench)");
if (!Bun.which("pocketsphinx_continuous")) skip("PocketSphinx is missing (npm start installs it)");
const model = "/usr/share/pocketsphinx/model/en-us";
const base = { binary: "pocketsphinx_continuous", hmm: `${model}/en-us`, lm: `${model}/en-us.lm.bin`, dict: `${model}/cmudict-en-us.dict` };
const work = mkdtempSync(join(tmpdir(), "scribe-vocabulary-"));
const sentences = namedSentences.slice(0, sized(namedSentences.length, 2));
const voices = fliteVoices.slice(0, sized(fliteVoices.length, 2));
const known = dictionaryWords(await Bun.file(base.dict).text());
for (const name of sentences.flatMap((s) => s.names))
  if (known.has(name.toLowerCase())) throw new Error(`${name} is in the dictionary: not a test of the vocabulary`);

type Run = { errors: number; words: number; namesFound: number; names: number };
const sum = (): Run => ({ errors: 0, words: 0, namesFound: 0, names: 0 });
const boosts = sized([-3, -4, -5, -6], [vocabularyLog10Probability]);
const plain = new SphinxEngine(base);
// The engine as the service runs it (vocabulary through RecognizeOptions), at the chosen boost.
const engine = new SphinxEngine({ ...base, vocabularyCacheDir: join(work, "cache") });
const otherBoosts = new Map(boosts.map((b) => [b, new SphinxVocabulary({ ...base, cacheDir: join(work, `cache${b}`), log10Probability: b })]));

/** The words recognised: through the engine's vocabulary at the chosen boost, else with another boost's files. */
async function words(wav: string, vocabulary: string[], boost = vocabularyLog10Probability): Promise<string> {
  const recognition =
    boost === vocabularyLog10Probability
      ? await engine.recognize(wav, { durationMs: 0, vocabulary })
      : await new SphinxEngine({ ...base, ...(await otherBoosts.get(boost)!.modelFiles(vocabulary)) }).recognize(wav, { durationMs: 0 });
  return recognition.words.map((w) => w.text).join(" ");
}

async function recognise(transcript: Promise<string>, reference: string, names: string[], into: Run) {
  const words = await transcript;
  const wer = wordErrorRate(reference, words);
  const said = new Set(normalizeForWer(words));
  const found = names.filter((n) => said.has(n.toUpperCase())).length;
  into.errors += wer.errors;
  into.words += wer.referenceWords;
  into.namesFound += found;
  into.names += names.length;
  return { words, wer: wer.wer, found };
}

const totals = { without: sum(), decoy: sum(), ...Object.fromEntries(boosts.map((b) => [`with ${b}`, sum()])) } as Record<string, Run>;
try {
  for (const [i, sentence] of sentences.entries()) {
    const decoy = namedSentences.filter((s) => s !== sentence).flatMap((s) => s.names);
    for (const voice of voices) {
      const wav = await speakWithFlite(sentence.text, voice, work, `s${i}-${voice}`);
      console.log(`\n${voice}: ${sentence.text}`);
      const none = await recognise(words(wav, []), sentence.text, sentence.names, totals.without!);
      console.log(`  without vocabulary   WER ${none.wer.toFixed(3)}  names ${none.found}/${sentence.names.length}  ${none.words}`);
      for (const boost of boosts) {
        const run = await recognise(words(wav, sentence.names, boost), sentence.text, sentence.names, totals[`with ${boost}`]!);
        console.log(`  with, boost ${boost}    WER ${run.wer.toFixed(3)}  names ${run.found}/${sentence.names.length}  ${run.words}`);
      }
      const off = await recognise(words(wav, decoy), sentence.text, sentence.names, totals.decoy!);
      console.log(`  decoy vocabulary     WER ${off.wer.toFixed(3)}  ${off.words}`);
    }
  }
  const wer = (r: Run) => (r.words === 0 ? 0 : r.errors / r.words);
  console.log("\nvocabulary              WER    names found");
  for (const [name, run] of Object.entries(totals)) console.log(`${name.padEnd(22)} ${wer(run).toFixed(3)}  ${run.namesFound}/${run.names}`);
  const chosen = totals[`with ${vocabularyLog10Probability}`]!;
  figure("WER without the vocabulary", wer(totals.without!), "");
  figure("WER with the vocabulary", wer(chosen), "", { op: "<=", value: wer(totals.without!), of: "without" });
  figure("names recognised without the vocabulary", totals.without!.namesFound / totals.without!.names, "");
  figure("names recognised with the vocabulary", chosen.namesFound / chosen.names, "", { op: ">=", value: 0.5 });
  // A vocabulary whose words are not said must not make the transcript worse.
  figure("WER with a decoy vocabulary", wer(totals.decoy!), "", { op: "<=", value: wer(totals.without!) + 0.02, of: "without, + 0.02" });
  await librispeechWithDecoy();
  await costs();
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Real speech with a vocabulary of names like its words, never said: the price of a vocabulary when it is wrong. */
async function librispeechWithDecoy() {
  if (!existsSync(join(librispeechDir, "transcripts.txt"))) return console.log(`\nno LibriSpeech clips at ${librispeechDir}: decoy on real speech skipped`);
  const decoy = ["Stewton", "Carrotson", "Mutterton", "Ladleby", "Pepperell", "Dinnerly", "Belliot", "Hoperton", "Counsellby", "Flourence"];
  const lines = readFileSync(join(librispeechDir, "transcripts.txt"), "utf8").split("\n").filter(Boolean);
  const totals = { without: sum(), decoy: sum() };
  console.log(`\nLibriSpeech, decoy vocabulary: ${decoy.join(", ")}`);
  for (const line of lines.slice(0, sized(lines.length, 2))) {
    const [id, reference] = [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)];
    const wav = join(work, `${id}.wav`);
    await Bun.spawn(["ffmpeg", "-loglevel", "error", "-y", "-i", join(librispeechDir, `${id}.flac`), "-ar", "16000", "-ac", "1", wav]).exited;
    const none = await recognise(words(wav, []), reference, [], totals.without);
    const off = await recognise(words(wav, decoy), reference, [], totals.decoy);
    console.log(`${id}  WER without ${none.wer.toFixed(3)}  with the decoy ${off.wer.toFixed(3)}${off.words === none.words ? "" : `: ${off.words}`}`);
  }
  const wer = (r: Run) => (r.words === 0 ? 0 : r.errors / r.words);
  figure("LibriSpeech WER without a vocabulary", wer(totals.without), "");
  figure("LibriSpeech WER with a decoy vocabulary", wer(totals.decoy), "", { op: "<=", value: wer(totals.without) + 0.005, of: "without, + 0.005" });
}

/** Building a vocabulary (once per vocabulary and process set), finding it built, and loading it in a chunk's process. */
async function costs() {
  const names = namedSentences.flatMap((s) => s.names);
  const hundred = [...names, ...Array.from({ length: 100 - names.length }, (_, i) => `Zentrovax${String.fromCharCode(97 + (i % 26))}${i}`)];
  const vocabulary = new SphinxVocabulary({ lm: base.lm, dict: base.dict, cacheDir: join(work, "costs") });
  let at = performance.now();
  await vocabulary.modelFiles(hundred);
  figure("building a 100-word vocabulary (once)", performance.now() - at, "ms", { op: "<=", value: 5000 });
  at = performance.now();
  await vocabulary.modelFiles(hundred);
  figure("finding it built (each chunk)", performance.now() - at, "ms", { op: "<=", value: 50 });
  const wav = await speakWithFlite("Hello.", "rms", work, "hello");
  const time = async (engine: SphinxEngine, words: string[]) => {
    const started = performance.now();
    await engine.recognize(wav, { durationMs: 0, vocabulary: words });
    return performance.now() - started;
  };
  await engine.recognize(wav, { durationMs: 0, vocabulary: hundred }); // built before it is timed
  // In turns (configured, vocabulary; vocabulary, configured; ...), so that a loaded machine slows both alike.
  const chunks = await inTurns(3, (side) => (side === "a" ? time(plain, []) : time(engine, hundred)));
  const mean = (side: "a" | "b") => chunks.reduce((sum, pair) => sum + pair[side], 0) / chunks.length;
  const [plainMs, vocabularyMs] = [mean("a"), mean("b")];
  figure("one short chunk, configured model", plainMs, "ms");
  figure("one short chunk, a vocabulary's model", vocabularyMs, "ms", { op: "<=", value: plainMs * 1.1 + 200, of: "configured + 10 %" });
}
