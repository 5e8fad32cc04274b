// A copy of an account's data (issue 32), embedded profile, the whole service in process:
//   bun bench/data-export.bench.ts [tasks] [media KiB]
// Default: 1,000 tasks (quick mode: 100), each with a supplied transcript of 40 segments (about 4 minutes of speech)
// and an uploaded media file of 256 KiB (put straight into the blob store where an upload leaves it). Then
// GET /api/user/export, read to its last byte as fast as the client can and thrown away, as a download to disk would.
// Figures: the zip's size, the time to its last byte, and the process's peak RSS while it streamed, against its RSS
// just before (the archive never sits in memory: the growth stays flat whatever the account's size).
import { startTestApp } from "../test/support/test-app.ts";
import { scriptPace } from "../test/support/limits.ts";
import { workersCaughtUp } from "../test/support/eventually.ts";
import { figure } from "./support/figures.ts";
import { handle } from "../src/core/command-handler.ts";
import { nextId } from "../src/core/sequence.ts";
import { taskDecider } from "../src/tasks/decider.ts";
import { taskStream } from "../src/tasks/events.ts";
import type { Segment } from "../src/tasks/segments.ts";
import { numberArgument } from "./support/quick.ts";

const taskCount = numberArgument(0, 1000, 100);
const mediaKiB = numberArgument(1, 256, 64);
const MiB = 1024 * 1024;

const words = "good morning and welcome to the weekly meeting let us start with the numbers from last week then plans".split(" ");
const segments: Segment[] = Array.from({ length: 40 }, (_, i) => ({
  id: i + 1,
  start: i * 6000,
  end: i * 6000 + 5500,
  text: Array.from({ length: 14 }, (_, w) => words[(i * 7 + w * 3) % words.length]).join(" "),
  speaker: `Speaker ${1 + (i % 2)}`,
  tokens: null,
}));

const app = await startTestApp({ ...scriptPace });
try {
  const user = await app.register({ name: "Bench Export" });
  const media = new Uint8Array(mediaKiB * 1024).map((_, i) => (i * 31) % 251);
  const seeding = performance.now();
  // Straight onto the tasks' streams, as the API's create would record them (3 tasks in progress at a time through the
  // API would make seeding take minutes): a transcript blob and a media file each.
  for (let first = 0; first < taskCount; first += 20) {
    const batch = Array.from({ length: Math.min(20, taskCount - first) }, (_, i) => first + i);
    await Promise.all(
      batch.map(async (n) => {
        const taskId = await nextId(app.adapters.eventStore, "task", "bench");
        const path = `uploads/${user.id}/${crypto.randomUUID().replaceAll("-", "")}/meeting-${n}.mp3`;
        await app.adapters.blobs.put(path, media, { contentType: "audio/mpeg" });
        const transcript = await app.adapters.transcripts.save(taskId, segments);
        const task = { taskId, userId: user.id, name: `Meeting ${n}`, file: `meeting-${n}.mp3`, path, disk: "objstore" as const, size: media.length };
        const created = { ...task, duration: 240, cost: null, url: null, speakerDiarization: false, transcript };
        await handle(
          app.adapters.eventStore,
          taskStream(taskId),
          taskDecider,
          (state) => taskDecider.decide({ type: "CreateTask", task: created, now: new Date().toISOString() }, state),
          {
            metadata: { correlationId: crypto.randomUUID(), causationId: null, userId: user.id, system: "bench" },
          },
        );
      }),
    );
  }
  await workersCaughtUp(app, undefined, 600_000);
  console.log(`${taskCount} tasks with ${mediaKiB} KiB of media each created in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);

  Bun.gc(true);
  const before = process.memoryUsage.rss();
  let peak = before;
  // The RSS as the zip goes out: a flat line, not one that climbs with the bytes sent, is what streaming means.
  const series: string[] = [];
  let size = 0;
  let lastSample = 0;
  const sampler = setInterval(() => {
    const rss = process.memoryUsage.rss();
    peak = Math.max(peak, rss);
    if (performance.now() - lastSample >= 1000) {
      lastSample = performance.now();
      series.push(`${(size / MiB).toFixed(0)} MiB sent: ${(rss / MiB).toFixed(0)}`);
    }
  }, 10);
  const started = performance.now();
  const response = await app.request("GET", "/api/user/export", { token: user.token });
  if (response.status !== 200) throw new Error(`export: ${response.status} ${await response.text()}`);
  for await (const chunk of response.body!) size += chunk.length;
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage.rss());

  console.log(`RSS (MiB) while it streamed, each second: ${series.join(" · ")}`);
  console.log(`RSS before the export ${(before / MiB).toFixed(0)} MiB, peak while it streamed ${(peak / MiB).toFixed(0)} MiB`);
  figure(`data export, ${taskCount} tasks: zip size`, size / MiB, "MiB");
  figure(`data export, ${taskCount} tasks: time to the last byte`, seconds, "s");
  figure("data export: throughput", size / MiB / seconds, "MiB/s");
  figure("data export: peak RSS while streaming", peak / MiB, "MiB");
  figure("data export: RSS growth while streaming (flat: the zip is never held)", (peak - before) / MiB, "MiB", { op: "<=", value: 128 });
} finally {
  await app.close();
}
