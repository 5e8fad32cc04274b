// Export formats of a 3-hour transcript: `bun bench/exports.bench.ts [segments] [runs]`.
// About 3,000 segments (3.6 s each, 8–17 words, two speakers, one in ten with Chinese, a summary),
// each format made `runs` times after two warm-up runs (which also loads the PDF fonts); the median is
// reported, the first (cold) pdf too. Light formats are timed to the last byte of their chunk stream,
// as the download route sends them. Goals: srt, vtt, csv, txt <= 50 ms each; pdf <= 2 s; docx <= 1 s.
// Quick mode: the same transcript, one run after the warm-up.
import { chunkStream, lightChunks, type LightFormat } from "../src/exports/formats/index.ts";
import type { ExportSegment } from "../src/exports/formats/text.ts";
import type { ExportDocument } from "../src/exports/document.ts";
import { renderPdf } from "../src/exports/pdf.ts";
import { renderDocx } from "../src/exports/docx.ts";
import { percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const count = numberArgument(0, 3000, 3000);
const runs = numberArgument(1, 5, 1);

const words =
  "the of and to in that is was he for it with as his on be at by this had not are but from or have they which one you were her all she there would their we him been has when who will more no if out so said what up its about into than them can only other new some could time these two may then do first any my now such like our over man me even most made after also did many before must through back years where much your way well down should because each just those people".split(
    " ",
  );
const chinese = "我们今天讨论项目的进度和下一步计划这个问题需要大家一起解决";
let seed = 42;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

const segments: ExportSegment[] = Array.from({ length: count }, (_, i) => {
  const length = 8 + Math.floor(random() * 10);
  let text = Array.from({ length }, () => words[Math.floor(random() * words.length)]).join(" ");
  if (i % 10 === 0) text += ` ${chinese.slice(0, 6 + Math.floor(random() * 20))}`;
  return { start: i * 3600, end: i * 3600 + 3400, text: `${text[0]!.toUpperCase()}${text.slice(1)}.`, speaker: `Speaker ${1 + (i % 2)}` };
});
const document: ExportDocument = {
  name: "Quarterly planning meeting 季度规划会议",
  createdAt: "2025-11-23T09:30:00.000Z",
  durationSeconds: Math.ceil((count * 3600) / 1000),
  summary: Array.from({ length: 5 }, (_, i) => `Point ${i + 1}: ${words.slice(i * 10, i * 10 + 30).join(" ")}.`).join("\n"),
  segments,
};

async function streamed(format: LightFormat): Promise<number> {
  let size = 0;
  for await (const chunk of chunkStream(lightChunks(format, segments))) size += chunk.length;
  return size;
}

async function measure(make: () => Promise<number>): Promise<{ ms: number; size: number; cold: number }> {
  let start = performance.now();
  const size = await make();
  const cold = performance.now() - start;
  // A second warm-up: the subtitle shaping's code is compiled by the JIT over more than one run, and whichever of srt
  // and vtt came first paid for it in its median (srt 61-66 ms, then 35 ms once warm).
  await make();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    start = performance.now();
    await make();
    times.push(performance.now() - start);
  }
  return { ms: percentile(times, 50), size, cold };
}

const goals: Record<string, number> = { txt: 50, srt: 50, vtt: 50, csv: 50, pdf: 2000, docx: 1000 };
const makers: Record<string, () => Promise<number>> = {
  txt: () => streamed("txt"),
  srt: () => streamed("srt"),
  vtt: () => streamed("vtt"),
  csv: () => streamed("csv"),
  pdf: async () => (await renderPdf(document)).length,
  docx: async () => (await renderDocx(document)).length,
};

console.log(`exports of ${count} segments (${(count * 3.6) / 3600} h), median of ${runs} runs after a warm-up`);
console.log("format      time   goal   size          first run");
for (const [format, make] of Object.entries(makers)) {
  const { ms, size, cold } = await measure(make);
  const verdict = ms <= goals[format]! ? "ok" : "OVER";
  console.log(
    `${format.padEnd(6)} ${ms.toFixed(1).padStart(7)} ms ${String(goals[format]).padStart(5)} ms ${(size / 1024).toFixed(0).padStart(6)} KiB   ${cold.toFixed(0).padStart(6)} ms  ${verdict}`,
  );
  figure(`${format}, median`, ms, "ms", { op: "<=", value: goals[format]! });
  if (format === "pdf") figure("pdf, first in the process (loads the fonts)", cold, "ms");
}
