/**
 * The web app's smaller things, in a real browser against the started service with a newcomer's settings (no
 * PUBLIC_URL, the spec's limits; the app opened at 127.0.0.1): a task renamed on its page on the version it shows,
 * with the API's refusals next to the field and a rename made elsewhere not overwritten; a folder name over its
 * limit refused with the limit in words, never cut; the duplicate-name error shown once; tasks moved to
 * Uncategorized; notifications that link to their task, a deleted task's gone; the history's actors in people's
 * words; the plans' prices, and no "Upgrade to Pro" once on Pro; at 375 px the list before folders, queue and
 * notifications.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, untilInPage, type BrowserHarness } from "../support/browser.ts";
import { until } from "../support/eventually.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

/** How many elements on the page show `text` (exactly) where a person sees them. */
const shown = (page: Page, text: string) => page.getByText(text, { exact: true }).filter({ visible: true }).count();

const row = (page: Page, name: string) =>
  page
    .getByRole("list", { name: "Transcriptions" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("link", { name, exact: true }) });
const folderLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: new RegExp(`^${name} \\d+$`) });
const folderCount = async (page: Page, name: string) => Number((await folderLink(page, name).locator(".count").textContent()) ?? "NaN");

describe.skipIf(!haveChromium)("the web app's smaller things (issue 25)", () => {
  let web: BrowserHarness;
  /** The page's session (registerThroughForm): the test's own calls go through it, as the page's would. */
  let session: Record<string, string> = {};
  let meeting = 0;
  let lecture = 0;
  let doomed = 0;

  const request = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${web.service.url}${path}`, {
      method,
      headers: { ...session, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  /** A task with its transcript, finished (the embedded summariser); one at a time, under the 3 in progress. */
  const finished = async (name: string) => {
    const { id } = await request<{ id: number }>("POST", "/api/tasks", {
      disk: "objstore",
      name,
      path: `${name}.mp3`,
      segments: [{ start: 0, end: 4_000, text: `${name}: hello there.` }],
    });
    await until(`${name} finished`, async () => (await request<{ status: string }>("GET", `/api/tasks/${id}`)).status === "finished");
    return id;
  };

  beforeAll(async () => {
    web = await startBrowserHarness();
    session = (await registerThroughForm(web.page, { name: "Dee", email: `details-${crypto.randomUUID()}@example.com` })).headers;
    meeting = await finished("Garden meeting");
    lecture = await finished("Lecture");
    doomed = await finished("Doomed");
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("a task renamed on its page: refusals by the field, once; a rename made elsewhere is not overwritten; the history says who", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${meeting}`);
    await page.getByRole("heading", { name: "Garden meeting", level: 1 }).waitFor();
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    const field = page.getByLabel("New name");
    // The field takes the focus once the refusal is drawn (an effect after the render): waited for, not raced.
    await untilInPage(page, 'document.activeElement?.id === "task-name"');
    expect(await field.inputValue()).toBe("Garden meeting");

    // Refused by the API: said once, next to the field, which takes the focus; nothing is cut.
    await field.fill("");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.locator("#task-name-error", { hasText: "The name field is required." }).waitFor();
    expect(await shown(page, "The name field is required.")).toBe(1);
    expect(await field.getAttribute("aria-invalid")).toBe("true");
    await untilInPage(page, 'document.activeElement?.id === "task-name"');
    const long = "n".repeat(300);
    await field.fill(long);
    await page.getByRole("button", { name: "Save name" }).click();
    await page.locator("#task-name-error", { hasText: "255" }).waitFor();
    expect(await field.inputValue()).toBe(long);
    await field.fill("gnp\u202e.exe");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.locator("#task-name-error", { hasText: "text-direction controls" }).waitFor();

    await field.fill("Board meeting");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByRole("heading", { name: "Board meeting", level: 1 }).waitFor();
    await page.getByRole("status").filter({ hasText: "Renamed to “Board meeting”." }).waitFor();
    // The tab's title is set in an effect after the render (useTitle).
    await until("the title to name the task", async () => (await page.title()).includes("Board meeting"));
    expect((await request<{ name: string }>("GET", `/api/tasks/${meeting}`)).name).toBe("Board meeting");
    // Focus is back on Rename.
    await untilInPage(page, 'document.activeElement?.textContent === "Rename"');

    // The transcript changed elsewhere (the version moved, the name did not): the rename is made without a word.
    await request("PATCH", `/api/tasks/${meeting}`, { segments: [{ id: 1, start: 0, end: 4_000, text: "Edited elsewhere." }] });
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await field.fill("Board meeting, May");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByRole("heading", { name: "Board meeting, May", level: 1 }).waitFor();

    // Renamed elsewhere meanwhile: that name is shown, and this one waits to be saved again.
    await request("PATCH", `/api/tasks/${meeting}`, { name: "Their name" });
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await field.fill("My name");
    await page.getByRole("button", { name: "Save name" }).click();
    const elsewhere = "Meanwhile it was renamed to “Their name” elsewhere. Save again to give it your name instead.";
    await page.locator("#task-name-error", { hasText: elsewhere }).waitFor();
    expect(await shown(page, elsewhere)).toBe(1);
    await page.getByRole("heading", { name: "Their name", level: 1 }).waitFor();
    expect((await request<{ name: string }>("GET", `/api/tasks/${meeting}`)).name).toBe("Their name");
    expect(await field.inputValue()).toBe("My name");
    await page.getByRole("button", { name: "Save name" }).click();
    await page.getByRole("heading", { name: "My name", level: 1 }).waitFor();
    expect((await request<{ name: string }>("GET", `/api/tasks/${meeting}`)).name).toBe("My name");

    // The history: who acted, in people's words, never a worker's name.
    const timeline = page.getByRole("list", { name: "Events of this transcription, oldest first" });
    await timeline.getByText("to “My name”").waitFor();
    const lines = await timeline
      .locator("li")
      .evaluateAll((items) => items.map((li) => [li.querySelector(".what")?.textContent, li.querySelector(".who")?.textContent]));
    expect(lines[0]).toEqual(["Created", "by you"]);
    expect(lines.find(([what]) => what?.startsWith("Finished transcribing"))?.[1]).toBe("by Scribe");
    expect(lines.find(([what]) => what?.startsWith("Renamed · to “My name”"))?.[1]).toBe("by you");
    expect(new Set(lines.map(([, who]) => who))).toEqual(new Set(["by you", "by Scribe"]));
    web.expectClean();
  }, 60_000);

  test("folder names: over the limit refused in words and never cut, the duplicate said once; tasks moved to Uncategorized", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/");
    await page.getByText("3 transcriptions.").waitFor();
    const newFolder = page.getByLabel("New folder");
    const limit = "At most 14 characters, or 7 Chinese characters.";
    for (const name of ["Quarterly reviews", "工作工作工作工作"]) {
      await newFolder.fill(name);
      expect(await newFolder.inputValue()).toBe(name);
      await page.getByRole("button", { name: "Create folder" }).click();
      await page.locator("#new-folder-error", { hasText: limit }).waitFor();
      expect(await shown(page, limit)).toBe(1);
    }
    await newFolder.fill("工作工作工作工");
    await page.getByRole("button", { name: "Create folder" }).click();
    await folderLink(page, "工作工作工作工").waitFor();
    expect(await page.locator("#new-folder-error").count()).toBe(0);

    await newFolder.fill("Work");
    await page.getByRole("button", { name: "Create folder" }).click();
    await folderLink(page, "Work").waitFor();
    await newFolder.fill("WORK");
    await page.getByRole("button", { name: "Create folder" }).click();
    await page.locator("#new-folder-error", { hasText: "The name has already been taken." }).waitFor();
    expect(await shown(page, "The name has already been taken.")).toBe(1);

    // The open folder's rename: the same limit, the same words.
    await folderLink(page, "Work").click();
    await page.getByText("0 transcriptions in Work.").waitFor();
    await page.getByRole("button", { name: "Rename Work" }).click();
    await page.getByLabel("New name for Work").fill("Work and the rest of it");
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await page.locator("#rename-folder-error", { hasText: limit }).waitFor();
    expect(await shown(page, limit)).toBe(1);

    await request("PATCH", "/api/tasks/bulk/move", { ids: [lecture, doomed], folder: "Work" });
    await page.goto("/");
    await until("the counts", async () => (await folderCount(page, "Work")) === 2);
    await page.getByLabel("Select Lecture").check();
    const target = page.getByLabel("Move to folder");
    expect(await target.locator("option").allTextContents()).toEqual(["工作工作工作工", "Work", "Uncategorized"]);
    await target.selectOption("Uncategorized");
    await page.getByRole("button", { name: "Move", exact: true }).click();
    await page.getByText("Moved 1 task to Uncategorized.").waitFor();
    await until("the counts", async () => (await folderCount(page, "Work")) === 1 && (await folderCount(page, "Uncategorized")) === 2);
    // The task list is fetched again beside the folders, not before them: waited for, not raced.
    await until("Lecture's row in Uncategorized", async () => (await row(page, "Lecture").textContent())?.includes("Uncategorized"));
    expect((await request<{ folder: string | null }>("GET", `/api/tasks/${lecture}`)).folder).toBeNull();
    web.expectClean();
  }, 60_000);

  test("notifications link to their task; a deleted task's are gone", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/");
    const notifications = page.getByRole("region", { name: "Notifications" });
    await notifications.getByText(/^\d+ unread/).waitFor();
    await notifications.locator("summary").click();
    const latest = notifications.getByRole("list", { name: "Latest notifications" });
    await latest.getByRole("link", { name: '"Doomed" is transcribed and ready.' }).waitFor();

    // Deleted from the list: its notification goes with it.
    await page.getByLabel("Select Doomed").check();
    await page.getByRole("button", { name: "Delete selected" }).click();
    await page.getByRole("button", { name: "Delete 1 task for good" }).click();
    await page.getByText("Deleted 1 task.").waitFor();
    await until("the notification gone", async () => (await latest.getByText("Doomed", { exact: false }).count()) === 0);
    expect((await request<{ task_id: number | null }[]>("GET", "/api/notifications")).map((n) => n.task_id)).not.toContain(doomed);

    await latest.getByRole("link", { name: '"Lecture" is transcribed and ready.' }).click();
    await page.getByRole("heading", { name: "Lecture", level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/tasks/${lecture}`);
    web.expectClean();
  }, 60_000);

  test("at 375 px the task list comes before folders, queue and notifications", async () => {
    web.checkpoint();
    const { page } = web;
    await page.setViewportSize({ width: 375, height: 800 });
    try {
      await page.goto("/");
      await page.getByText("2 transcriptions.").waitFor();
      const top = async (name: string, role: "list" | "navigation" | "region") => (await page.getByRole(role, { name, exact: true }).boundingBox())?.y ?? NaN;
      const list = await top("Transcriptions", "list");
      expect(list).toBeLessThan(await top("Folders", "navigation"));
      expect(list).toBeLessThan(await top("Queue", "region"));
      expect(list).toBeLessThan(await top("Notifications", "region"));
      // The search and filters stay with the list, above it.
      expect((await page.getByLabel("Search by name").boundingBox())!.y).toBeLessThan(list);
      expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    // Beside each other from 48rem: the folders on the left, level with the list's filters.
    await page.goto("/");
    await page.getByText("2 transcriptions.").waitFor();
    const folders = (await page.getByRole("navigation", { name: "Folders" }).boundingBox())!;
    const content = (await page.getByLabel("Search by name").boundingBox())!;
    expect(folders.x).toBeLessThan(content.x);
    web.expectClean();
  }, 60_000);

  test("the Account page shows the plans' prices; once on Pro, no Upgrade to Pro", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/account");
    const forSale = page.getByRole("list", { name: "Plans for sale" });
    await forSale.waitFor();
    expect(await forSale.textContent()).toContain("$15.00 a month, with 20 hours of transcription a month");
    expect(await forSale.textContent()).toContain("$150.00 a year");
    await page.getByRole("button", { name: "Upgrade to Pro, monthly" }).click();
    await page.getByRole("button", { name: "Pay" }).click();
    await page.getByRole("heading", { name: "Payment complete" }).waitFor();
    await page.goto("/account");
    await page.getByRole("region", { name: "Plan", exact: true }).getByText("Pro", { exact: true }).waitFor();
    await forSale.waitFor();
    expect(await forSale.textContent()).toContain("$15.00 a month");
    await page.getByText("Your plan, Pro, already includes what is for sale here.").waitFor();
    expect(await page.getByRole("button", { name: /Upgrade to Pro|Try the checkout/ }).count()).toBe(0);
    web.expectClean();
  }, 60_000);
});
