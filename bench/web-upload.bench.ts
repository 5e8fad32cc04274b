// A file uploaded through the web app in Chromium, against the same upload with the HTTP API alone:
//   bun bench/web-upload.bench.ts [MiB] [--quick]      (default 1024: a 1 GiB file, 3 rounds; quick: 128 MiB, 1 round)
// Embedded profile on loopback. The browser: a signed-in user picks the file on the New transcription page and
// presses "Upload and transcribe"; timed from the click to the task's page (sign, 8 parts PUT by XHR 4 at a
// time, complete). The API alone: the same sign → parts (4 at a time, fetch from Bun, read from disk) →
// complete (test/support/upload-client.ts). Each round runs the two one after the other, in turns (browser then
// API; API then browser; ...), so that a loaded machine slows both alike: the speeds are medians over the rounds, in
// MB/s end to end, and the browser's share of the API's speed the median of the rounds' ratios.
import { mkdtempSync, rmSync } from "node:fs";
import { open } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { chromiumAvailable, chromiumFlags, chromiumPath, registerSession } from "../test/support/browser.ts";
import { startServiceProcess } from "../test/support/service-process.ts";
import { UploadClient } from "../test/support/upload-client.ts";
import { figure, skip } from "./support/figures.ts";
import { quick } from "./support/quick.ts";
import { median } from "./support/stats.ts";
import { inTurns, medianRatio } from "./support/in-turns.ts";

const MiB = 1024 * 1024;
const quickRun = quick || process.argv.includes("--quick");
const sizeArgument = process.argv.slice(2).find((argument) => /^\d+$/.test(argument));
const size = Number(sizeArgument ?? (quickRun ? 128 : 1024)) * MiB;
const rounds = quickRun ? 1 : 3;
if (!chromiumAvailable) skip(`no Chromium at ${chromiumPath} (apt-get install chromium)`);

const dir = mkdtempSync(join(tmpdir(), "scribe-web-upload-bench-"));
const file = join(dir, "bench.mp4");
// Pseudo-random blocks written 8 MiB at a time (never held whole), as bench/uploads.bench.ts does.
const out = await open(file, "w");
const block = crypto.getRandomValues(new Uint8Array(65536));
const chunk = new Uint8Array(8 * MiB);
for (let i = 0; i < chunk.byteLength; i += block.byteLength) chunk.set(block, i);
for (let written = 0; written < size; written += chunk.byteLength) {
  chunk[0] = written & 0xff;
  await out.write(chunk, 0, Math.min(chunk.byteLength, size - written));
}
await out.close();

const service = await startServiceProcess((url) => ({ PUBLIC_URL: url, RATE_LIMIT_PER_MINUTE: "1000000", SESSION_RATE_LIMIT_PER_MINUTE: "1000000" }));
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
try {
  // The web app's session, in the context's cookies; the bench's own calls go through it too.
  const session = await registerSession(service.url, { name: "Bench", email: `upload-bench-${crypto.randomUUID()}@example.com` });
  const client = new UploadClient(service.url, session.headers);
  const context = await browser.newContext({ baseURL: service.url });
  await context.addCookies(session.cookies);
  const page = await context.newPage();

  /** Deletes the task (its media too), so that the 3-task limit and the disk stay clear for the next round. */
  const forget = async (taskId: number) => {
    await client.call("DELETE", `/api/tasks/${taskId}`);
    await Bun.sleep(1000);
  };

  const throughBrowser = async (): Promise<number> => {
    await page.goto("/new");
    await page.getByText("up to 2 GiB").waitFor({ timeout: 30_000 });
    await page.getByLabel("Audio or video file", { exact: true }).setInputFiles(file);
    const started = performance.now();
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 600_000, waitUntil: "commit" });
    const seconds = (performance.now() - started) / 1000;
    await forget(Number(new URL(page.url()).pathname.split("/").pop()));
    return size / 1e6 / seconds;
  };

  const throughApi = async (): Promise<number> => {
    const started = performance.now();
    const signed = await client.sign("bench.mp4", "video/mp4", size);
    await client.putAll(signed, Bun.file(file), 4);
    const completed = await client.complete(signed, "bench.mp4", "video/mp4", size);
    const seconds = (performance.now() - started) / 1000;
    if (completed.status !== 201) throw new Error(`complete: ${completed.status} ${await completed.text()}`);
    await forget(((await completed.json()) as { task: { id: number } }).task.id);
    return size / 1e6 / seconds;
  };

  const pairs = await inTurns(rounds, (side) => (side === "a" ? throughBrowser() : throughApi()));
  for (const [round, pair] of pairs.entries())
    console.log(`round ${round + 1}: browser ${pair.a.toFixed(0)} MB/s, API alone ${pair.b.toFixed(0)} MB/s, ${(pair.a / pair.b).toFixed(2)}`);
  const inBrowser = median(pairs.map((pair) => pair.a));
  const alone = median(pairs.map((pair) => pair.b));
  console.log(`${(size / MiB).toFixed(0)} MiB, ${rounds} round(s), medians:`);
  figure("upload through the web app in Chromium", inBrowser, "MB/s");
  figure("the same upload with the HTTP API alone", alone, "MB/s");
  figure("web app ÷ API alone", medianRatio(pairs), "");
} finally {
  await browser.close();
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
}
