// How soon a task's own page shows the transcript after an upload (issue 25, item 3), in Debian's Chromium
// (playwright-core) against the started service (embedded profile, its default recogniser):
//   bun bench/task-page-follow.bench.ts [rounds]      (default 5; quick mode 2)
// Each round a signed-in user uploads ../shared/testdata/jfk.wav (11 s of speech) on the New transcription page and
// stays on the task's page it lands on, which follows the task on its status stream. Timed in the page (an init
// script, test/support/task-page-timing.ts): from the upload's last byte (the last part's XHR upload `load`) to the
// first segment of the transcript on the page; the medians, and where the time went by what the page said when.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { chromiumAvailable, chromiumFlags, chromiumPath, registerThroughForm } from "../test/support/browser.ts";
import { sharedTestdata } from "../test/support/media-fixtures.ts";
import { startServiceProcess } from "../test/support/service-process.ts";
import { recordTaskPage, taskPageTiming } from "../test/support/task-page-timing.ts";
import { figure, skip } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";
import { median } from "./support/stats.ts";

const rounds = numberArgument(0, 5, 2);
const jfk = join(sharedTestdata, "jfk.wav");
if (!chromiumAvailable) skip(`no Chromium at ${chromiumPath} (apt-get install chromium)`);
if (!existsSync(jfk)) skip(`no ${jfk} (../shared/testdata)`);

// PUBLIC_URL the browser's origin and a raised request rate: what the rounds measure is the page following its
// task, not the limits (see issue 25's other parts).
const service = await startServiceProcess((url) => ({ PUBLIC_URL: url, RATE_LIMIT_PER_MINUTE: "1000000" }));
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
try {
  const context = await browser.newContext({ baseURL: service.url });
  await recordTaskPage(context);
  const page = await context.newPage();
  page.setDefaultTimeout(120_000);
  await registerThroughForm(page, { name: "Bench", email: `follow-bench-${crypto.randomUUID()}@example.com` });

  const totals: number[] = [];
  const parts = new Map<string, number[]>();
  for (let round = 1; round <= rounds; round++) {
    await page.goto("/new");
    await page.getByText("up to 2 GiB").waitFor();
    await page.getByLabel("Audio or video file", { exact: true }).setInputFiles(jfk);
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    await page
      .locator("ol.segments li")
      .first()
      .waitFor()
      .catch(async (error: unknown) => {
        const said = await page.locator(".transcript-page").textContent();
        throw new Error(`round ${round}: no transcript on ${page.url()}; the page says: ${said}`, { cause: error });
      });
    const seen = await taskPageTiming(page);
    if (seen.lastByte === null || seen.drawn === null) throw new Error("the page did not record the upload or the transcript");
    const total = seen.drawn - seen.lastByte;
    totals.push(total);
    // The service's side, from its log (same machine, same clock): the pipeline's run, and from its end to the page.
    const taskId = Number(new URL(page.url()).pathname.split("/").pop());
    const lines = service
      .stdout()
      .split("\n")
      .flatMap((line) => (line.startsWith("{") ? [JSON.parse(line) as { msg?: string; taskId?: number; time: string }] : []))
      .filter((line) => line.taskId === taskId);
    const started = lines.find((line) => line.msg === "transcription started");
    const finished = lines.find((line) => line.msg === "transcription finished");
    if (started && finished) {
      const pipelineMs = Date.parse(finished.time) - Date.parse(started.time);
      const service: [string, number][] = [
        ["last byte → pipeline started", Date.parse(started.time) - seen.lastByte],
        ["pipeline (decode, recognise, summarise, finish)", pipelineMs],
        ["pipeline finished → transcript drawn", seen.drawn - Date.parse(finished.time)],
      ];
      for (const [what, ms] of service) parts.set(what, [...(parts.get(what) ?? []), ms]);
      console.log(`round ${round}: ${service.map(([what, ms]) => `${what} ${Math.round(ms)} ms`).join("; ")}`);
    }
    // What the page said, and from when: each stage's share of the wait (the last, "ready", until the segments drawn).
    const times = [...seen.stageTimes, seen.drawn];
    const said = seen.stages.map((stage, i) => `${stage} ${Math.round(times[i + 1]! - times[i]!)} ms`);
    const first = seen.stageTimes[0] ?? seen.drawn;
    for (const [i, stage] of seen.stages.entries()) parts.set(stage, [...(parts.get(stage) ?? []), times[i + 1]! - times[i]!]);
    parts.set("(before the first stage)", [...(parts.get("(before the first stage)") ?? []), first - seen.lastByte]);
    console.log(`round ${round}: ${Math.round(total)} ms; last byte → first stage ${Math.round(first - seen.lastByte)} ms; ${said.join("; ")}`);
  }
  console.log(`jfk.wav, ${rounds} round(s), medians by stage:`);
  for (const [stage, samples] of parts) console.log(`  ${stage}: ${Math.round(median(samples))} ms (${samples.length} of ${rounds} rounds)`);
  figure("upload's last byte → transcript drawn on the task's page (jfk.wav)", median(totals), "ms");
} finally {
  await browser.close();
  await service.stop();
}
