// The web app's first load, in Debian's Chromium (playwright-core) against the started service:
// `bun bench/web.bench.ts [loads]` (default 10 loads, quick mode 3).
// A signed-in user opens `/` (the task list) in a fresh browser context each time (empty cache), and the bench
// reports the JavaScript and CSS bytes sent for it (compressed, as the browser received them: the entry script,
// its stylesheet and any chunk it preloads; goal: under 150 KiB for the whole app), the time from navigation to
// the task list's page drawn (median; "interactive": the app has rendered and handles input), and how long the
// api role took to build the app at start-up (the `web app built` log line).
import { chromium } from "playwright-core";
import { chromiumAvailable, chromiumFlags, chromiumPath, registerSession } from "../test/support/browser.ts";
import { startServiceProcess } from "../test/support/service-process.ts";
import { figure, skip } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";
import { percentile } from "./support/stats.ts";

const loads = numberArgument(0, 10, 3);
if (!chromiumAvailable) skip(`no Chromium at ${chromiumPath} (apt-get install chromium)`);

const service = await startServiceProcess((url) => ({ PUBLIC_URL: url, RATE_LIMIT_PER_MINUTE: "100000" }));
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
try {
  const { cookies } = await registerSession(service.url, { name: "Bench", email: `bench-${crypto.randomUUID()}@example.com` });

  const bytes: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < loads; i++) {
    // bypassCSP: the page's CSP forbids eval, which playwright's waitForFunction polls with; the app is the same.
    const context = await browser.newContext({ baseURL: service.url, bypassCSP: true });
    // Signed in before the page's first script runs, as a returning user is (its session cookies).
    await context.addCookies(cookies);
    const page = await context.newPage();
    await page.goto("/", { waitUntil: "commit" });
    const drawnAt = await page.waitForFunction(`document.querySelector("main h1")?.textContent === "Transcriptions" && performance.now()`, undefined, {
      polling: "raf",
      timeout: 30_000,
    });
    ready.push((await drawnAt.jsonValue()) as number);
    await page.waitForLoadState("networkidle");
    const sent = await page.evaluate<number>(
      `performance.getEntriesByType("resource").filter((e) => /\\.(js|css)$/.test(new URL(e.name).pathname)).reduce((sum, e) => sum + e.encodedBodySize, 0)`,
    );
    bytes.push(sent);
    await context.close();
  }
  const built = service
    .stdout()
    .split("\n")
    .map((line) => {
      try {
        return JSON.parse(line) as { msg?: string; ms?: number };
      } catch {
        return {};
      }
    })
    .find((line) => line.msg === "web app built");
  figure("first load: JavaScript and CSS sent (compressed)", Math.max(...bytes) / 1024, "KiB", { op: "<=", value: 150 });
  figure("first load: navigation to the task list drawn (p50)", percentile(ready, 50), "ms");
  figure("build of the app at start-up", built?.ms ?? Number.NaN, "ms");
} finally {
  await browser.close();
  await service.stop();
}
