// The task list's first load with a full account, in Debian's Chromium (playwright-core) against the started service:
// `bun bench/web-first-load.bench.ts [loads] [tasks]` (defaults 10 loads and 10,000 tasks; quick mode 3 and 1,000).
// One user's tasks (a tenth of them failed, a fifth in one of three folders) are seeded as events straight into the
// event store and folded into the read models by ProjectionRunner.rebuild (as bench/tasks.bench.ts does); then a
// signed-in user opens `/` in a fresh browser context each time (empty cache) and the bench reports:
// - first rows drawn: from navigation until the first page of rows is on screen, median of the loads;
// - time to interactive: from navigation until the first page of rows is drawn, the folders' counts are shown,
//   and a click on a row's checkbox has been handled (the selection's heading drawn), median of the loads;
// - the JavaScript and CSS bytes sent for that load, compressed as the browser received them (goal: under 150 KiB).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { chromium } from "playwright-core";
import { Checkpoints } from "../projections/checkpoints.ts";
import { allProjections } from "../projections/index.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { openDocumentStore, openEventStore } from "../src/adapters.ts";
import { loadConfig } from "../src/config.ts";
import type { NewEvent } from "../src/core/event.ts";
import { taskStream, type TaskEvent } from "../src/tasks/events.ts";
import { chromiumAvailable, chromiumFlags, chromiumPath, registerSession } from "../test/support/browser.ts";
import { startServiceProcess } from "../test/support/service-process.ts";
import { figure, skip } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";
import { percentile } from "./support/stats.ts";

const loads = numberArgument(0, 10, 3);
const taskCount = numberArgument(1, 10_000, 1_000);
if (!chromiumAvailable) skip(`no Chromium at ${chromiumPath} (apt-get install chromium)`);

const env = { RATE_LIMIT_PER_MINUTE: "1000000000" };
const dataDir = mkdtempSync(`${tmpdir()}/scribe-web-first-load-`);
const folderNames = ["Work", "Lectures", "Family"];

/** The account, its folders and its web app session, made through the API on the DATA_DIR the seeding then fills. */
async function account(): Promise<{ session: Awaited<ReturnType<typeof registerSession>>; userId: number; folders: { id: number; name: string }[] }> {
  const service = await startServiceProcess(env, dataDir);
  try {
    const session = await registerSession(service.url, { name: "Bench", email: "bench@example.com" });
    const post = async <T>(path: string, body: unknown) =>
      (await (
        await fetch(`${service.url}${path}`, {
          method: "POST",
          headers: { "content-type": "application/json", ...session.headers },
          body: JSON.stringify(body),
        })
      ).json()) as T;
    const folders = [];
    for (const name of folderNames) folders.push(await post<{ id: number; name: string }>("/api/folders", { name }));
    return { session, userId: session.user.id, folders };
  } finally {
    await service.stop();
  }
}

async function seed(userId: number, folders: { id: number; name: string }[]): Promise<void> {
  const config = loadConfig({ ...env, DATA_DIR: dataDir });
  const store = await openEventStore(config);
  const db = await openDocumentStore(config);
  const metadata = { correlationId: "bench-seed", causationId: null, userId: null, system: "bench" };
  const names = ["Weekly meeting", "Customer interview", "Lecture", "Podcast episode", "Stand-up", "Board call"];
  for (let from = 1; from <= taskCount; from += 1000) {
    const appends: Promise<unknown>[] = [];
    for (let taskId = from; taskId < Math.min(from + 1000, taskCount + 1); taskId++) {
      const name = `${names[taskId % names.length]} ${taskId}`;
      const duration = 60 + (taskId % 3600);
      const events: TaskEvent[] = [
        {
          type: "TaskCreated",
          data: {
            taskId,
            userId,
            name,
            file: `${name}.mp3`,
            path: `uploads/${userId}/${taskId}.mp3`,
            disk: "objstore",
            size: 1_000_000 + taskId,
            duration,
            cost: null,
            url: null,
            speakerDiarization: false,
            transcript: null,
            createdAt: new Date(Date.now() - (taskCount - taskId) * 60_000).toISOString(),
          },
        },
        taskId % 10 === 0
          ? { type: "TaskFailed", data: { userId, taskId, attempt: 1, name, reason: "The file is not audio or video." } }
          : {
              type: "TaskFinished",
              data: { userId, taskId, attempt: 1, name, transcript: null, duration, cost: duration, summary: null, mindmap: null },
            },
      ];
      if (taskId % 5 === 0) events.push({ type: "TaskMoved", data: { userId, taskId, folder: folders[taskId % folders.length]! } });
      const newEvents: NewEvent[] = events.map((e) => ({ id: crypto.randomUUID(), type: e.type, data: e.data, metadata }));
      appends.push(store.append(taskStream(taskId), newEvents, { expectedRevision: "no_stream" }));
    }
    await Promise.all(appends);
  }
  await new ProjectionRunner(store, db, allProjections).rebuild();
  // The seeded history counts as already relayed: the workers have nothing to do with it.
  let position = 0;
  for (let batch = await store.readAll({ after: 0, limit: 10_000 }); batch.length > 0; batch = await store.readAll({ after: position, limit: 10_000 }))
    position = batch[batch.length - 1]!.position;
  await new Checkpoints(db).save("relay", position);
  await db.close();
  await store.close();
}

const { session, userId, folders } = await account();
await seed(userId, folders);
const service = await startServiceProcess((url) => ({ ...env, PUBLIC_URL: url }), dataDir);
const browser = await chromium.launch({ executablePath: chromiumPath, args: chromiumFlags });
try {
  // Cookies are per host, not port: the session made on the first run's port holds on this one.
  const cookies = session.cookies.map((cookie) => ({ ...cookie, url: new URL(service.url).origin }));
  const listed = (await (await fetch(`${service.url}/api/tasks`, { headers: { cookie: session.headers.cookie! } })).json()) as {
    total: number;
  };
  if (listed.total !== taskCount) throw new Error(`the service lists ${listed.total} tasks, not the ${taskCount} seeded`);
  const bytes: number[] = [];
  const interactive: number[] = [];
  const drawn: number[] = [];
  for (let i = 0; i < loads; i++) {
    // bypassCSP: the page's CSP forbids eval, which playwright's waitForFunction polls with; the app is the same.
    const context = await browser.newContext({ baseURL: service.url, bypassCSP: true });
    // Signed in before the page's first script runs, as a returning user is (its session cookies).
    await context.addCookies(cookies);
    const page = await context.newPage();
    await page.goto("/", { waitUntil: "commit" });
    const drawnAt = await page.waitForFunction(`document.querySelector(".task-row") && performance.now()`, undefined, { polling: "raf", timeout: 30_000 });
    drawn.push((await drawnAt.jsonValue()) as number);
    await page
      .getByRole("navigation", { name: "Folders" })
      .getByRole("link", { name: /^Work \d+$/ })
      .waitFor();
    await page.locator(".task-row input[type=checkbox]").first().click();
    await page.getByRole("heading", { name: "1 task selected" }).waitFor();
    interactive.push(await page.evaluate<number>("performance.now()"));
    await page.waitForLoadState("networkidle");
    bytes.push(
      await page.evaluate<number>(
        `performance.getEntriesByType("resource").filter((e) => /\\.(js|css)$/.test(new URL(e.name).pathname)).reduce((sum, e) => sum + e.encodedBodySize, 0)`,
      ),
    );
    await context.close();
  }
  figure(`task list first load, ${taskCount} tasks: JavaScript and CSS sent (compressed)`, Math.max(...bytes) / 1024, "KiB", { op: "<=", value: 150 });
  figure(`task list first load, ${taskCount} tasks: first rows drawn (p50)`, percentile(drawn, 50), "ms");
  figure(`task list first load, ${taskCount} tasks: time to interactive (p50)`, percentile(interactive, 50), "ms");
} finally {
  await browser.close();
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
