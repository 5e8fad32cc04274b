// Upload throughput and memory on the real service (embedded profile, loopback):
//   bun bench/uploads.bench.ts [MiB]        (default 1024: a 1 GiB file; 128 in quick mode)
// One file goes sign → sign-part + PUT of every part (4 at a time, read from disk) → complete. Prints
// MB/s end to end (sign to complete's answer, assembly included) and the server's peak RSS growth over
// its idle RSS, sampled from /proc every 10 ms. Goal: ≥ 300 MB/s and ≤ 64 MiB RSS growth.
import { mkdtempSync, rmSync, readFileSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess } from "../test/support/service-process.ts";
import { UploadClient } from "../test/support/upload-client.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const MiB = 1024 * 1024;
const size = numberArgument(0, 1024, 128) * MiB;
const dir = mkdtempSync(join(tmpdir(), "scribe-upload-bench-"));
const file = join(dir, "bench.mp4");

// A file of pseudo-random blocks, written in 8 MiB chunks (never held whole).
const out = await open(file, "w");
const block = crypto.getRandomValues(new Uint8Array(8 * MiB).subarray(0, 65536));
const chunk = new Uint8Array(8 * MiB);
for (let i = 0; i < chunk.byteLength; i += block.byteLength) chunk.set(block, i);
for (let written = 0; written < size; written += chunk.byteLength) {
  chunk[0] = written & 0xff;
  await out.write(chunk, 0, Math.min(chunk.byteLength, size - written));
}
await out.close();

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
const service = await startServiceProcess((url) => ({ PUBLIC_URL: url, RATE_LIMIT_PER_MINUTE: "1000000" }));
try {
  const client = await UploadClient.register(service.url);
  // Warm up the routes (JIT, SQLite pages) with a small upload, then let the server settle.
  const small = await client.sign("warm.mp4", "video/mp4", 1000);
  await client.putAll(small, new Blob([new Uint8Array(1000)]));
  await client.complete(small, "warm.mp4", "video/mp4", 1000);
  Bun.gc(true);
  await Bun.sleep(500);
  const pid = service.process.pid;
  const baseline = rssOf(pid);
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, rssOf(pid))), 10);

  const started = performance.now();
  const session = await client.sign("bench.mp4", "video/mp4", size);
  await client.putAll(session, Bun.file(file), 4);
  const completed = await client.complete(session, "bench.mp4", "video/mp4", size);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  if (completed.status !== 201) throw new Error(`complete: ${completed.status} ${await completed.text()}`);

  console.log(
    `upload of ${(size / MiB).toFixed(0)} MiB in ${session.part_count} parts of ${(session.part_size / MiB).toFixed(0)} MiB: ${seconds.toFixed(2)} s, ${(size / 1e6 / seconds).toFixed(0)} MB/s end to end (goal ≥ 300 MB/s)`,
  );
  console.log(
    `server RSS: idle ${(baseline / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB, growth ${((peak - baseline) / MiB).toFixed(1)} MiB (goal ≤ 64 MiB)`,
  );
  figure("upload, sign to complete", size / 1e6 / seconds, "MB/s", { op: ">=", value: 300 });
  figure("server's peak RSS growth", (peak - baseline) / MiB, "MiB", { op: "<=", value: 64 });
} finally {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
