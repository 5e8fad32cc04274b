/**
 * A task's own page follows its task, in a real browser against the started service, opened at
 * 127.0.0.1 with PUBLIC_URL unset: a clip uploaded through the New transcription page lands on `/tasks/{id}`, which
 * says where the task is (its live region) and, without a reload, draws the transcript, the player and the exports
 * once it has finished, with its real duration. A task from a link that answers 404 shows, again without a reload,
 * its failure with the reason and Retry; after Retry (the link now answers with the clip) the page follows the task
 * again, to its transcript; a 429 to its status stream is waited out, not taken for the end. It prints the time from
 * the upload's last byte to the transcript drawn.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { sharedTestdata, spoken } from "../support/media-fixtures.ts";
import { until } from "../support/eventually.ts";
import { recordTaskPage, taskPageTiming } from "../support/task-page-timing.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");
const jfk = join(sharedTestdata, "jfk.wav");
const haveJfk = haveChromium && prerequisite(`${jfk} (../shared/testdata)`, existsSync(jfk), "the shared test data beside the checkout");

/** A person's wait: recognition on a loaded two-core machine, with the browser and the suite beside it. */
const transcribed = 120_000;

async function openNewPage(page: Page): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "New transcription" }).click();
  await page.getByRole("heading", { name: "New transcription", level: 1 }).waitFor();
  await page.getByText("up to 2 GiB").waitFor();
}

/** The page's live region: where the task is, then how it ended. */
const stage = (page: Page) => page.locator(".task-stage[role=status]");
const header = (page: Page) => page.locator(".transcript-header p.muted");

describe.skipIf(!haveChromium)("a task's own page follows its task", () => {
  let web: BrowserHarness;
  let clip: string;
  let clipBytes: Uint8Array;
  /** The stand-in media host: answers 404 until it is told to serve the clip, holding each request until let go. */
  let standIn: ReturnType<typeof Bun.serve>;
  let serveClip = false;
  let letGo: () => void = () => {};
  let held = Promise.resolve();
  let requestsHeld = 0;

  beforeAll(async () => {
    clip = haveJfk ? jfk : await spoken("Ask not what your country can do for you. Ask what you can do for your country.");
    clipBytes = readFileSync(clip);
    standIn = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch() {
        requestsHeld++;
        await held;
        return serveClip ? new Response(clipBytes, { headers: { "content-type": "audio/wav" } }) : new Response("not found", { status: 404 });
      },
    });
    web = await startBrowserHarness({
      // The stand-in media host is on loopback, which the service refuses unless told.
      env: () => ({ MEDIA_FETCH_ALLOW_LOOPBACK: "true" }),
    });
    await recordTaskPage(web.context);
    await registerThroughForm(web.page, { name: "Ada Follower", email: `follow-${crypto.randomUUID()}@example.com` });
  }, 60_000);
  afterAll(async () => {
    letGo();
    await web?.close();
    standIn?.stop(true);
  });

  test(
    "an upload's page goes from where the task is to its transcript, player and exports without a reload",
    async () => {
      web.checkpoint();
      const { page } = web;
      await openNewPage(page);
      const { loadedAt } = await taskPageTiming(page);
      await page.getByLabel("Audio or video file").setInputFiles(clip);
      await page.getByRole("button", { name: "Upload and transcribe" }).click();
      await page.waitForURL(/\/tasks\/\d+$/);

      // The page says where the task is while it is not finished: never the old "not ready yet" left standing.
      await page.locator("ol.segments li").first().waitFor({ timeout: transcribed });
      const seen = await taskPageTiming(page);
      expect(seen.loadedAt).toBe(loadedAt); // no reload: the same document all along
      expect(seen.stages.at(-1)).toBe("The transcript is ready.");
      expect(seen.stages.slice(0, -1).length).toBeGreaterThan(0);
      for (const said of seen.stages.slice(0, -1))
        expect(said).toMatch(/^(Waiting for a free slot|Preparing the audio|Recognising speech|Summarising|Transcribing)$/);
      expect(await stage(page).textContent()).toBe("The transcript is ready.");

      // The transcript, the player and the exports, the moment it is ready; the duration is the media's, known now.
      expect(await page.getByRole("heading", { name: "Transcript", exact: true }).count()).toBe(1);
      await page.locator("audio").waitFor();
      await page.getByRole("list", { name: "Download the transcript as" }).waitFor();
      const meta = (await header(page).textContent()) ?? "";
      expect(meta).toMatch(/^[1-9]\d* s · Finished · /);
      if (haveJfk) expect(meta).toStartWith("11 s · ");
      expect(await page.getByText("not ready yet").count()).toBe(0);

      const figure = seen.drawn! - seen.lastByte!;
      expect(figure).toBeGreaterThan(0);
      console.log(`task page: ${haveJfk ? "jfk.wav" : "an espeak-ng clip"}: upload's last byte → transcript drawn: ${Math.round(figure)} ms`);
      web.expectClean();
    },
    transcribed + 30_000,
  );

  test(
    "a failed task shows its reason and Retry as it fails; after Retry the page follows it again to its transcript",
    async () => {
      web.checkpoint();
      const { page } = web;
      held = new Promise((resolve) => {
        letGo = resolve;
      });
      await openNewPage(page);
      const { loadedAt } = await taskPageTiming(page);
      // The status stream's first answer is a 429: the page asks again when its Retry-After says, and follows on.
      let refused = 0;
      await page.route(/\/api\/tasks\/\d+\/events$/, (route) =>
        refused++ === 0
          ? route.fulfill({ status: 429, headers: { "retry-after": "2", "content-type": "application/json" }, body: '{"message":"Too many requests."}' })
          : route.continue(),
      );
      await page.getByLabel("Link", { exact: true }).fill(`http://127.0.0.1:${standIn.port}/talk.wav`);
      await page.getByLabel("Name (optional)").fill("Talk from a link");
      await page.getByRole("button", { name: "Transcribe from the link" }).click();
      await page.waitForURL(/\/tasks\/\d+$/);
      await page.getByRole("heading", { name: "Talk from a link", level: 1 }).waitFor();
      // The service is fetching the media (the stand-in holds the request): the page says so.
      await until("the media requested", async () => requestsHeld > 0, 20_000);
      await stage(page).getByText("Fetching the media").waitFor();
      await until("the stream asked again after its 429", async () => refused >= 2, 20_000);
      expect(await header(page).textContent()).not.toContain("0 s");

      letGo(); // the link answers 404
      await stage(page).getByText("The transcription failed.").waitFor({ timeout: 20_000 });
      await page.locator("#failure-reason").getByText("the server answered 404").waitFor();
      const retry = page.getByRole("button", { name: "Retry" });
      expect(await retry.getAttribute("aria-describedby")).toBe("failure-reason");
      expect((await taskPageTiming(page)).loadedAt).toBe(loadedAt);

      serveClip = true;
      await retry.click();
      await page.locator("ol.segments li").first().waitFor({ timeout: transcribed });
      const seen = await taskPageTiming(page);
      expect(seen.loadedAt).toBe(loadedAt);
      const afterFailure = seen.stages.slice(seen.stages.lastIndexOf("The transcription failed.") + 1);
      expect(afterFailure.at(-1)).toBe("The transcript is ready.");
      expect(afterFailure.length).toBeGreaterThan(1);
      expect(await page.locator("#failure-reason").count()).toBe(0);
      expect(await header(page).textContent()).toMatch(/^[1-9]\d* s · Finished · /);
      web.expectClean();
    },
    transcribed + 60_000,
  );
});
