// Real-time factor of the whisper engine (@fugood/whisper.node, CPU): seconds of compute per second of audio for a
// 10-second clip of espeak-ng speech, recognised by WhisperEngine as the pipeline calls it (one chunk, token
// timestamps, WHISPER_THREADS = the cores). The model is the one the tests generate (test/support/ggml-whisper-model.ts:
// tiny random weights), so the figure is the binding's and whisper.cpp's fixed cost (mel, a 30-second encoder window,
// decoding) on this machine, not a real model's; give a real ggml file to measure that one.
// `bun bench/whisper-rtf.bench.ts [model file]` (quick mode: 2 runs instead of 5). No goal: it is a figure to compare.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { WhisperEngine } from "../src/transcription/engines/whisper.ts";
import { writeWavSlice } from "../src/transcription/wav.ts";
import { writeTinyWhisperModel } from "../test/support/ggml-whisper-model.ts";
import { ffmpeg, spoken } from "../test/support/media-fixtures.ts";
import { figure } from "./support/figures.ts";
import { sized } from "./support/quick.ts";

const work = mkdtempSync(join(tmpdir(), "scribe-whisper-rtf-"));
const runs = sized(5, 2);
try {
  const started = performance.now();
  const model = process.argv[2] ?? writeTinyWhisperModel(join(work, "ggml-tiny-random.bin"));
  if (!process.argv[2]) console.log(`generated model: ${(statSync(model).size / 1e6).toFixed(1)} MB in ${(performance.now() - started).toFixed(0)} ms`);
  const pcm = join(work, "clip.pcm");
  const speech = await spoken("He could wait no longer. The engine is proven, not accurate. Ask not what your country can do for you.");
  await ffmpeg("-stream_loop", "-1", "-i", speech, "-t", "10", "-ac", "1", "-ar", "16000", "-f", "s16le", pcm);
  const durationMs = Math.floor(statSync(pcm).size / 32);
  const wav = join(work, "clip.wav");
  await writeWavSlice(pcm, 0, durationMs, wav);

  const engine = new WhisperEngine({ model, accelerator: "none", language: null, threads: cpus().length });
  const loadStarted = performance.now();
  const first = await engine.recognize(wav, { durationMs });
  console.log(`model load + first recognition: ${((performance.now() - loadStarted) / 1000).toFixed(2)} s, ${first.words.length} words`);
  const seconds: number[] = [];
  for (let run = 0; run < runs; run++) {
    const at = performance.now();
    await engine.recognize(wav, { durationMs });
    seconds.push((performance.now() - at) / 1000);
  }
  await engine.close();
  seconds.sort((a, b) => a - b);
  console.log(`clip: ${(durationMs / 1000).toFixed(1)} s, ${cpus().length} threads, ${runs} runs: ${seconds.map((s) => s.toFixed(2)).join(", ")} s`);
  figure(
    `whisper real-time factor (${process.argv[2] ? "given model" : "generated tiny model"}), median`,
    seconds[Math.floor(runs / 2)]! / (durationMs / 1000),
    "",
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
