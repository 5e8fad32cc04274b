// Word error rate of the default engine (PocketSphinx) on the LibriSpeech clips in ../shared/testdata,
// against their transcripts.txt, per clip: PocketSphinx alone (pocketsphinx_continuous on the clip
// decoded to 16 kHz, with the pipeline's tuned flags) and through the whole pipeline (upload, decode, chunking,
// segments, over the API). Goals: the pipeline no worse than PocketSphinx alone, and WER ≤ 0.22 (issue 30; the
// tuning behind it is bench/wer-tuning.bench.ts).
// `bun bench/wer.bench.ts [clips directory]`; quick mode takes the first two clips. Skipped without the clips.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wordErrorRate, type WerResult } from "../src/transcription/wer.ts";
import { benchApp, ffmpeg, transcribe, transcriptText } from "./support/transcription.ts";
import { figure, skip } from "./support/figures.ts";
import { sized } from "./support/quick.ts";
import { librispeechDir } from "./support/long-recording.ts";
import { tunedDecoderFlags } from "../src/transcription/engines/sphinx-decoder.ts";
import { writeWavSlice } from "../src/transcription/wav.ts";

const dir = process.argv[2] ?? librispeechDir;
if (!existsSync(join(dir, "transcripts.txt"))) skip(`no LibriSpeech clips at ${dir}`);
const references = new Map(
  readFileSync(join(dir, "transcripts.txt"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => [line.slice(0, line.indexOf(" ")), line.slice(line.indexOf(" ") + 1)] as const),
);
const clips = readdirSync(dir)
  .filter((f) => f.endsWith(".flac") && references.has(f.replace(/\.flac$/, "")))
  .sort()
  .slice(0, sized(Infinity, 2));
const work = mkdtempSync(join(tmpdir(), "scribe-wer-"));

async function sphinxAlone(clip: string): Promise<string> {
  // A bare 44-byte WAV, as the pipeline writes: PocketSphinx reads ffmpeg's extra LIST header as samples.
  const pcm = join(work, "clip.pcm");
  const wav = join(work, "clip.wav");
  await ffmpeg(["-i", join(dir, clip), "-ar", "16000", "-ac", "1", "-f", "s16le", pcm]);
  await writeWavSlice(pcm, 0, Math.floor(Bun.file(pcm).size / 32), wav);
  const child = Bun.spawn(["pocketsphinx_continuous", "-infile", wav, ...tunedDecoderFlags, "-logfn", "/dev/null"], { stdout: "pipe", stderr: "ignore" });
  const out = await new Response(child.stdout).text();
  await child.exited;
  return out.split("\n").join(" ");
}

const { app, user } = await benchApp();
const total = { alone: { errors: 0, words: 0 }, pipeline: { errors: 0, words: 0 } };
const add = (sum: { errors: number; words: number }, r: WerResult) => ((sum.errors += r.errors), (sum.words += r.referenceWords));
console.log("clip               words  WER alone  WER pipeline  pipeline ms");
try {
  for (const clip of clips) {
    const id = clip.replace(/\.flac$/, "");
    const reference = references.get(id)!;
    const alone = wordErrorRate(reference, await sphinxAlone(clip));
    const result = await transcribe(app, user, readFileSync(join(dir, clip)), { name: id });
    const pipeline = wordErrorRate(reference, transcriptText(result.task));
    add(total.alone, alone);
    add(total.pipeline, pipeline);
    console.log(
      `${id.padEnd(18)} ${String(alone.referenceWords).padStart(5)}  ${alone.wer.toFixed(3).padStart(9)}  ${pipeline.wer.toFixed(3).padStart(12)}  ${result.ms.toFixed(0).padStart(11)}`,
    );
  }
  const overall = (s: { errors: number; words: number }) => (s.words === 0 ? 0 : s.errors / s.words);
  console.log(
    `${"all".padEnd(18)} ${String(total.alone.words).padStart(5)}  ${overall(total.alone).toFixed(3).padStart(9)}  ${overall(total.pipeline).toFixed(3).padStart(12)}`,
  );
  figure("WER, PocketSphinx alone", overall(total.alone), "");
  // The pipeline must not lose words PocketSphinx finds on its own (chunking, decoding, stitching).
  figure("WER, through the pipeline", overall(total.pipeline), "", { op: "<=", value: overall(total.alone) + 1e-9, of: "PocketSphinx alone" });
  figure("WER through the pipeline, against the goal", overall(total.pipeline), "", { op: "<=", value: 0.22 });
} finally {
  await app.close();
  rmSync(work, { recursive: true, force: true });
}
