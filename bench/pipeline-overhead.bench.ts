// Pipeline overhead per task, excluding recognition: for short recordings (the LibriSpeech clips, or
// espeak-ng speech without them) transcribed one at a time through the API, the time from the create
// request until the read model shows the task finished, minus the time the engine spent recognising.
// What remains is the bus, fetching the media, probing, decoding, chunking, segments, summary, mind
// map, the commands and the projections. Goal: <= 1 s per task.
// `bun bench/pipeline-overhead.bench.ts [tasks]` (default 12; 3 in quick mode)
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile } from "./support/stats.ts";
import { benchApp, transcribe } from "./support/transcription.ts";
import { librispeechDir } from "./support/long-recording.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const count = numberArgument(0, 12, 3);
const work = mkdtempSync(join(tmpdir(), "scribe-overhead-"));
let clips = existsSync(librispeechDir)
  ? readdirSync(librispeechDir)
      .filter((f) => f.endsWith(".flac"))
      .map((f) => join(librispeechDir, f))
  : [];
if (clips.length === 0) {
  const spoken = join(work, "spoken.wav");
  await Bun.spawn(["espeak-ng", "-w", spoken, "A short recording to measure what the pipeline costs around recognition."]).exited;
  clips = [spoken];
}
const { app, user } = await benchApp();
const overheads: number[] = [];
const stageTotals = new Map<string, number>();
try {
  await transcribe(app, user, readFileSync(clips[0]!)); // warm-up: first process start, JIT
  for (let i = 0; i < count; i++) {
    const result = await transcribe(app, user, readFileSync(clips[i % clips.length]!), { diarization: true });
    if (!result.timings) throw new Error(`task ${result.id} ${String(result.task.status)}: ${String(result.task.failure_reason)}`);
    overheads.push(result.ms - result.timings.stages.recognize);
    for (const [stage, ms] of Object.entries(result.timings.stages)) if (stage !== "recognize") stageTotals.set(stage, (stageTotals.get(stage) ?? 0) + ms);
    stageTotals.set("outside the pipeline", (stageTotals.get("outside the pipeline") ?? 0) + result.ms - result.timings.totalMs);
  }
  const mean = overheads.reduce((a, b) => a + b, 0) / overheads.length;
  console.log(`${count} tasks of ${clips.length} short clip(s), speaker diarization on`);
  console.log(`overhead excluding recognition per task: p50 ${percentile(overheads, 50).toFixed(0)} ms`);
  figure("overhead excluding recognition, mean", mean, "ms");
  figure("overhead excluding recognition, max", Math.max(...overheads), "ms", { op: "<=", value: 1000 });
  console.log(`mean per stage (ms): ${[...stageTotals].map(([k, v]) => `${k} ${(v / count).toFixed(0)}`).join(", ")}`);
} finally {
  await app.close();
  rmSync(work, { recursive: true, force: true });
}
