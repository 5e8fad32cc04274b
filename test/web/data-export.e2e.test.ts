/**
 * The account page's "Download my data" in a real browser against the started service: a plain link the browser follows
 * with the session cookie and saves as the zip the API names, holding the task made through the same session.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");
if (haveChromium && !Bun.which("unzip")) throw new Error("unzip is missing: run scripts/setup.sh --test (Debian's unzip)");

describe.skipIf(!haveChromium)("the account page's data export", () => {
  let web: BrowserHarness;
  beforeAll(async () => {
    web = await startBrowserHarness();
  }, 60_000);
  afterAll(() => web?.close());

  test("Download my data saves scribe-data-<date>.zip with the account's tasks, the page staying where it is", async () => {
    web.checkpoint();
    const { page } = web;
    const session = await registerThroughForm(page, { name: "Data Owner" });
    const created = await fetch(`${web.service.url}/api/tasks`, {
      method: "POST",
      headers: { ...session.headers, "content-type": "application/json" },
      body: JSON.stringify({ disk: "objstore", name: "Kept words", path: "uploads/a.mp3", segments: [{ start: 0, end: 1000, text: "Mine." }] }),
    });
    expect(created.status).toBe(201);
    await page.goto("/account");
    const region = page.getByRole("region", { name: "Your data" });
    const [download] = await Promise.all([page.waitForEvent("download"), region.getByRole("link", { name: "Download my data" }).click()]);
    expect(download.suggestedFilename()).toBe(`scribe-data-${new Date().toISOString().slice(0, 10)}.zip`);
    const saved = await download.path();
    expect(await download.failure()).toBeNull();
    const listing = Bun.spawnSync(["unzip", "-Z1", saved], { stdout: "pipe" }).stdout.toString().split("\n");
    expect(listing).toContain("README.txt");
    expect(listing).toContain("profile.json");
    expect(listing.some((name) => /^tasks\/\d+ Kept words\/task\.json$/.test(name))).toBe(true);
    expect(JSON.parse(Bun.spawnSync(["unzip", "-p", saved, "profile.json"], { stdout: "pipe" }).stdout.toString()).email).toBe(session.user.email);
    expect(new URL(page.url()).pathname).toBe("/account");
    expect(readFileSync(saved).subarray(0, 2).toString()).toBe("PK");
    web.expectClean();
  }, 30_000);
});
