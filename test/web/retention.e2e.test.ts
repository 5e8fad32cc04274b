/**
 * "Keep transcriptions for" on the Account page, in a real browser against the started service: the current value
 * and the service's limit shown, a refused number explained beside its field in the API's words, a number of days
 * saved and still there after a reload, and "until I delete them" turning retention off again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

describe.skipIf(!haveChromium)("the account's retention in the web app", () => {
  let web: BrowserHarness;
  beforeAll(async () => {
    web = await startBrowserHarness({ env: () => ({ RETENTION_MAX_DAYS: "90" }) });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("off by default; a refused number is explained; days saved, shown after a reload; then off again", async () => {
    web.checkpoint();
    const { page } = web;
    const { headers } = await registerThroughForm(page);
    const retentionOf = async () =>
      ((await (await fetch(`${web.service.url}/api/user`, { headers })).json()) as { retention_days: number | null }).retention_days;
    await page.goto("/account");
    const section = page.getByRole("region", { name: "Keep transcriptions for" });
    await section.getByText("Your transcriptions are kept until you delete them.").waitFor();

    await section.getByLabel("For a number of days").check();
    const days = section.getByLabel("Days, from 1 to 90");
    await days.fill("120");
    await section.getByRole("button", { name: "Save" }).click();
    await section.getByText("from 1 to 90 (the longest this service allows)").waitFor();
    expect(await days.getAttribute("aria-invalid")).toBe("true");
    expect(await retentionOf()).toBeNull();

    await days.fill("30");
    await section.getByRole("button", { name: "Save" }).click();
    await section.getByText("Saved: transcriptions are kept for 30 days.").waitFor();
    expect(await retentionOf()).toBe(30);
    await page.reload();
    await section.getByText("Transcriptions are deleted 30 days after they were created").waitFor();
    expect(await section.getByLabel("Days, from 1 to 90").inputValue()).toBe("30");

    await section.getByLabel("Until I delete them").check();
    await section.getByRole("button", { name: "Save" }).click();
    await section.getByText("Saved: transcriptions are kept until you delete them.").waitFor();
    expect(await retentionOf()).toBeNull();
    web.expectClean();
  }, 60_000);
});
