// The PocketSphinx tuning table behind src/transcription/engines/sphinx-decoder.ts: each step's word error rate per
// LibriSpeech clip (../shared/testdata) and on jfk.wav, scored by NIST's sclite and by the project's wer.ts (which
// must agree), then the real-time factor of the chosen flags. A step is kept only when it lowers the clips' WER
// without raising jfk.wav's. Goal: WER ≤ 0.22 on the clips at a real-time factor ≤ 0.5.
// `bun bench/wer-tuning.bench.ts`. Skipped without the clips or without sclite (Debian package sctk).
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { wordErrorRate, type WerResult } from "../src/transcription/wer.ts";
import { tunedDecoderFlags } from "../src/transcription/engines/sphinx-decoder.ts";
import { writeWavSlice } from "../src/transcription/wav.ts";
import { figure, skip } from "./support/figures.ts";
import { librispeechDir } from "./support/long-recording.ts";
import { scliteAvailable, scliteWer } from "./support/sclite.ts";
import { ffmpeg } from "./support/transcription.ts";

const jfkWav = join(dirname(librispeechDir), "jfk.wav");
const jfkReference = "And so my fellow Americans, ask not what your country can do for you, ask what you can do for your country.";
if (!existsSync(join(librispeechDir, "transcripts.txt")) || !existsSync(jfkWav)) skip(`no LibriSpeech clips or jfk.wav at ${dirname(librispeechDir)}`);
if (!scliteAvailable()) skip("sclite is not installed (Debian package sctk)");

type Step = { name: string; flags: readonly string[]; filter?: string };
const tuned = [...tunedDecoderFlags];
const steps: Step[] = [
  { name: "defaults", flags: [] },
  { name: "+ high-pass 100 Hz", flags: [], filter: "highpass=f=100" },
  { name: "+ loudness normalisation", flags: [], filter: "loudnorm" },
  { name: "+ noise reduction (afftdn)", flags: [], filter: "afftdn" },
  { name: "-lw 5", flags: tuned.slice(0, 2) },
  { name: "-lw 5 -wip 4 (chosen)", flags: tuned },
  { name: "chosen + high-pass 100 Hz", flags: tuned, filter: "highpass=f=100" },
  { name: "chosen + loudness normalisation", flags: tuned, filter: "loudnorm" },
  { name: "chosen + wider beams", flags: [...tuned, "-beam", "1e-60", "-wbeam", "1e-40", "-pbeam", "1e-60"] },
  { name: "chosen + -fwdflat no", flags: [...tuned, "-fwdflat", "no"] },
  { name: "chosen + -bestpath no", flags: [...tuned, "-bestpath", "no"] },
  { name: "-lw 5.5 -wip 4", flags: ["-lw", "5.5", "-wip", "4"] },
  { name: "-lw 5 -wip 2", flags: ["-lw", "5", "-wip", "2"] },
];

const references = readFileSync(join(librispeechDir, "transcripts.txt"), "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => ({ id: line.slice(0, line.indexOf(" ")), text: line.slice(line.indexOf(" ") + 1) }))
  .filter(({ id }) => existsSync(join(librispeechDir, `${id}.flac`)));
const work = mkdtempSync(join(tmpdir(), "scribe-wer-tuning-"));

/**
 * The clip as the pipeline hands it to an engine: 16 kHz mono PCM in a bare 44-byte WAV (wav.ts), through `filter` when
 * the step prepares audio. Not ffmpeg's own WAV: PocketSphinx reads its extra LIST header as samples, and that alone
 * moved these clips' WER by up to 0.09, enough to tune on noise.
 */
async function prepared(source: string, name: string, filter: string | undefined): Promise<string> {
  const base = join(work, `${name}-${Bun.hash(filter ?? "").toString(16)}`);
  if (!existsSync(`${base}.wav`)) {
    await ffmpeg(["-i", source, ...(filter ? ["-af", filter] : []), "-ar", "16000", "-ac", "1", "-f", "s16le", `${base}.pcm`]);
    await writeWavSlice(`${base}.pcm`, 0, Math.floor(Bun.file(`${base}.pcm`).size / 32), `${base}.wav`);
  }
  return `${base}.wav`;
}

async function recognise(wav: string, flags: readonly string[]): Promise<{ text: string; ms: number }> {
  const started = performance.now();
  const child = Bun.spawn(["pocketsphinx_continuous", "-infile", wav, "-samprate", "16000", ...flags, "-logfn", "/dev/null"], {
    stdout: "pipe",
    stderr: "ignore",
  });
  const text = (await new Response(child.stdout).text()).split("\n").join(" ").trim();
  await child.exited;
  return { text, ms: performance.now() - started };
}

const secondsOf = async (wav: string) => (Bun.file(wav).size - 44) / 32_000;
const cell = (r: WerResult) => r.wer.toFixed(3);

try {
  console.log(`step${" ".repeat(34)}${references.map((r) => r.id.slice(-9).padStart(10)).join("")}  clips (sclite / wer.ts)  jfk.wav`);
  let chosen = { clips: Number.NaN, jfk: Number.NaN, rtf: Number.NaN };
  for (const step of steps) {
    const hypotheses: string[] = [];
    let computeMs = 0;
    let audioSeconds = 0;
    // One clip at a time: the real-time factor is one recogniser's, on one core.
    for (const { id } of references) {
      const wav = await prepared(join(librispeechDir, `${id}.flac`), id, step.filter);
      const { text, ms } = await recognise(wav, step.flags);
      hypotheses.push(text);
      computeMs += ms;
      audioSeconds += await secondsOf(wav);
    }
    const perClip = references.map((r, i) => wordErrorRate(r.text, hypotheses[i]!));
    const sclite = await scliteWer(
      references.map((r) => r.text),
      hypotheses,
    );
    const ours = perClip.reduce((sum, r) => sum + r.errors, 0) / perClip.reduce((sum, r) => sum + r.referenceWords, 0);
    if (Math.abs(sclite.wer - ours) > 1e-9) throw new Error(`sclite (${sclite.wer}) and wer.ts (${ours}) disagree on step ${step.name}`);
    const jfk = wordErrorRate(jfkReference, (await recognise(await prepared(jfkWav, "jfk", step.filter), step.flags)).text);
    console.log(
      `${step.name.padEnd(38)}${perClip.map((r) => cell(r).padStart(10)).join("")}  ${sclite.wer.toFixed(3)} / ${ours.toFixed(3)}${" ".repeat(9)}${cell(jfk)}`,
    );
    if (step.name.endsWith("(chosen)")) chosen = { clips: sclite.wer, jfk: jfk.wer, rtf: computeMs / 1000 / audioSeconds };
  }
  const baseline = wordErrorRate(jfkReference, (await recognise(await prepared(jfkWav, "jfk", undefined), [])).text).wer;
  figure("WER on the LibriSpeech clips, tuned (sclite)", chosen.clips, "", { op: "<=", value: 0.22 });
  figure("WER on jfk.wav, tuned", chosen.jfk, "", { op: "<=", value: baseline, of: "untuned" });
  figure("real-time factor, tuned (one recogniser)", chosen.rtf, "", { op: "<=", value: 0.5 });
} finally {
  rmSync(work, { recursive: true, force: true });
}
