// Real-time factor of a 10-minute recording end to end, default engine (PocketSphinx), embedded
// profile: from the request that creates the task (what an upload's complete does) until the read
// model shows it finished, divided by the recording's length. The recording is the LibriSpeech clips
// of ../shared/testdata (espeak-ng speech without them) repeated with short pauses, as a 64 kb/s MP3.
// Goal: <= 0.5 on this 2-core machine, with both cores busy (chunks are recognised in parallel).
// `bun bench/rtf.bench.ts [seconds]` (default 600; 30 in quick mode)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { benchApp, transcribe } from "./support/transcription.ts";
import { longRecording } from "./support/long-recording.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const seconds = numberArgument(0, 600, 30);
const work = mkdtempSync(join(tmpdir(), "scribe-rtf-"));
const mp3 = join(work, "recording.mp3");
await longRecording(work, seconds, mp3);
const { app, user } = await benchApp();
try {
  const cpuBefore = process.cpuUsage();
  const result = await transcribe(app, user, readFileSync(mp3), { name: "Ten minutes", contentType: "audio/mpeg" });
  if (result.task.status !== "finished") throw new Error(`task ${result.task.status}: ${String(result.task.failure_reason)}`);
  const rtf = result.ms / 1000 / seconds;
  const t = result.timings;
  console.log(`recording: ${seconds} s (${(readFileSync(mp3).length / 1e6).toFixed(1)} MB MP3), ${cpus().length} cores, ${t?.chunks ?? "?"} chunks`);
  console.log(`end to end: ${(result.ms / 1000).toFixed(1)} s`);
  figure("real-time factor, create to finished", rtf, "", { op: "<=", value: 0.5 });
  if (t)
    console.log(
      `stages (s): ${Object.entries(t.stages)
        .map(([k, v]) => `${k} ${(v / 1000).toFixed(2)}`)
        .join(", ")}`,
    );
  console.log(`segments: ${(result.task.segments as unknown[]).length}, duration ${String(result.task.duration)} s, quality ${String(result.task.quality)}`);
  const cpu = process.cpuUsage(cpuBefore);
  console.log(`service process CPU: ${((cpu.user + cpu.system) / 1e6).toFixed(1)} s (recognition runs in child processes)`);
} finally {
  await app.close();
  rmSync(work, { recursive: true, force: true });
}
