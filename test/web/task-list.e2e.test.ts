/**
 * The task list in a real browser against the started service: tasks made through the API,
 * then listed, searched, filtered by status and paged (state in the URL, so back works); folders created,
 * renamed and deleted with their counts following; two tasks selected and moved, one deleted; a failed task's
 * reason and its retry; a status turning to finished without a reload (the status stream); the queue and the
 * notifications' unread count, marked read. A local server stands in for the summary service (its answer held
 * until the test lets it go, which keeps a task pending) and for a media host (404, or held).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness, screenshotsDir } from "../support/browser.ts";
import { until } from "../support/eventually.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

const screenshots = screenshotsDir;

/** A request the stand-in server holds until the test opens its gate. */
class Gate {
  private opened = Promise.resolve();
  private release = () => {};
  held = 0;
  close(): void {
    this.opened = new Promise((resolve) => {
      this.release = resolve;
    });
  }
  open(): void {
    this.release();
  }
  async pass(): Promise<void> {
    this.held++;
    await this.opened;
  }
}

/** A row of the list, by the task's name. */
const row = (page: Page, name: string) =>
  page
    .getByRole("list", { name: "Transcriptions" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("link", { name, exact: true }) });
const folderLink = (page: Page, name: string) => page.getByRole("navigation", { name: "Folders" }).getByRole("link", { name: new RegExp(`^${name} \\d+$`) });
const folderCount = async (page: Page, name: string) => Number((await folderLink(page, name).locator(".count").textContent()) ?? "NaN");

describe.skipIf(!haveChromium)("the web app's task list", () => {
  let web: BrowserHarness;
  let standIn: ReturnType<typeof Bun.serve>;
  const summaries = new Gate();
  const media = new Gate();
  /** The page's session (registerThroughForm): the test's own calls go through it too. */
  let session: Record<string, string> = {};

  const request = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${web.service.url}${path}`, {
      method,
      headers: { ...session, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  const status = async (id: number) => (await request<{ status: string }>("GET", `/api/tasks/${id}`)).status;
  /** A task with its transcript: it finishes once the summary service answers. */
  const transcribed = (name: string) =>
    request<{ id: number }>("POST", "/api/tasks", {
      disk: "objstore",
      name,
      path: `${name}.mp3`,
      segments: [{ start: 0, end: 61_000, text: `${name}: hello there.` }],
    });

  beforeAll(async () => {
    standIn = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        const { pathname } = new URL(req.url);
        if (pathname === "/v1/chat/completions") {
          await summaries.pass();
          return Response.json({ choices: [{ index: 0, message: { role: "assistant", content: "# Notes\n## Talk\n- hello" }, finish_reason: "stop" }] });
        }
        await media.pass();
        return new Response("not found", { status: 404 });
      },
    });
    const standInUrl = `http://127.0.0.1:${standIn.port}`;
    web = await startBrowserHarness({
      env: () => ({ SUMMARY_OPENAI_URL: `${standInUrl}/v1`, SUMMARY_OPENAI_KEY: "sk-test", MEDIA_FETCH_ALLOW_LOOPBACK: "true" }),
    });
    session = (await registerThroughForm(web.page, { name: "Lin", email: `list-${crypto.randomUUID()}@example.com` })).headers;
    // Three at a time: at most three tasks of a user are in progress.
    const names = ["Lecture 1", "Lecture 2", "Lecture 3", "Interview Ada", "Interview Bob", "Podcast 7"];
    for (let i = 0; i < names.length; i += 3) {
      const made: { id: number }[] = [];
      // One after another, so that their ids (the list's order) follow the names.
      for (const name of names.slice(i, i + 3)) made.push(await transcribed(name));
      for (const { id } of made) await until(`task ${id} finished`, async () => (await status(id)) === "finished");
    }
    const broken = await request<{ id: number }>("POST", "/api/tasks", { disk: "remote", name: "Broken link", path: `${standInUrl}/gone.mp3` });
    await until("the broken link failed", async () => (await status(broken.id)) === "failed");
    await request("POST", "/api/folders", { name: "Work" });
  }, 60_000);
  afterAll(async () => {
    summaries.open();
    media.open();
    await web?.close();
    standIn?.stop(true);
  });

  test("lists the tasks newest first with their status, folder and duration; search, status filter and pages live in the URL", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/");
    await page.getByText("7 transcriptions.").waitFor();
    const names = await page.getByRole("list", { name: "Transcriptions" }).locator(".task-name").allTextContents();
    expect(names).toEqual(["Broken link", "Podcast 7", "Interview Bob", "Interview Ada", "Lecture 3", "Lecture 2", "Lecture 1"]);
    expect(await row(page, "Lecture 1").textContent()).toContain("Uncategorized");
    expect(await row(page, "Lecture 1").textContent()).toContain("1 min");
    expect(await row(page, "Lecture 1").locator(".status").textContent()).toBe("Finished");
    expect(await row(page, "Lecture 1").getByRole("link").getAttribute("href")).toMatch(/^\/tasks\/\d+$/);

    await page.getByLabel("Search by name").fill("lecture 2");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText("1 transcription.").waitFor();
    expect(new URL(page.url()).search).toBe("?search=lecture+2");
    expect(await page.getByRole("list", { name: "Transcriptions" }).locator(".task-name").allTextContents()).toEqual(["Lecture 2"]);

    await page.getByLabel("Search by name").fill("");
    await page.getByLabel("Status").selectOption("failed");
    await page.getByText("1 transcription.").waitFor();
    expect(new URL(page.url()).search).toBe("?status=failed");
    await row(page, "Broken link").getByText("the server answered 404").waitFor();

    await page.goto("/?per_page=5");
    await page.getByText("Page 1 of 2").waitFor();
    expect(await page.getByRole("list", { name: "Transcriptions" }).getByRole("listitem").count()).toBe(5);
    await page.getByRole("link", { name: "Next page" }).click();
    await page.getByText("Page 2 of 2").waitFor();
    expect(await page.getByRole("list", { name: "Transcriptions" }).locator(".task-name").allTextContents()).toEqual(["Lecture 2", "Lecture 1"]);
    await page.goBack();
    await page.getByText("Page 1 of 2").waitFor();
    await page.reload();
    await page.getByText("Page 1 of 2").waitFor();
    expect(await page.getByLabel("Per page").inputValue()).toBe("5");
    web.expectClean();
  }, 30_000);

  test("folders: created, two tasks moved in, renamed, one deleted, the folder deleted; counts follow", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/");
    await page.getByText("7 transcriptions.").waitFor();
    expect(await folderCount(page, "All transcriptions")).toBe(7);
    expect(await folderCount(page, "Uncategorized")).toBe(7);
    expect(await folderCount(page, "Work")).toBe(0);

    await page.getByLabel("New folder").fill("Drafts");
    await page.getByRole("button", { name: "Create folder" }).click();
    await folderLink(page, "Drafts").waitFor();
    // A name the API refuses (taken, whatever its case) is said next to the field.
    await page.getByLabel("New folder").fill("work");
    await page.getByRole("button", { name: "Create folder" }).click();
    await page.locator("#new-folder-error").waitFor();

    await page.getByLabel("Select Lecture 1").check();
    await page.getByLabel("Select Lecture 2").check();
    await page.getByRole("heading", { name: "2 tasks selected" }).waitFor();
    await page.getByLabel("Move to folder").selectOption("Drafts");
    await page.getByRole("button", { name: "Move", exact: true }).click();
    await page.getByText("Moved 2 tasks to Drafts.").waitFor();
    await until("the counts", async () => (await folderCount(page, "Drafts")) === 2 && (await folderCount(page, "Uncategorized")) === 5);
    // The task list is fetched again beside the folders, not before them: waited for, not raced.
    await until("Lecture 1's row in Drafts", async () => (await row(page, "Lecture 1").textContent())?.includes("Drafts"));

    await folderLink(page, "Drafts").click();
    await page.getByText("2 transcriptions in Drafts.").waitFor();
    await page.getByRole("button", { name: "Rename Drafts" }).click();
    await page.getByLabel("New name for Drafts").fill("Archive");
    await page.getByRole("button", { name: "Rename", exact: true }).click();
    await page.getByText("2 transcriptions in Archive.").waitFor();
    expect(new URL(page.url()).search).toBe("?folder=Archive");
    expect(await folderCount(page, "Archive")).toBe(2);

    await page.getByLabel("Select Lecture 2").check();
    await page.getByRole("button", { name: "Delete selected" }).click();
    await page.getByRole("button", { name: "Delete 1 task for good" }).click();
    await page.getByText("Deleted 1 task.").waitFor();
    await until("the counts", async () => (await folderCount(page, "Archive")) === 1 && (await folderCount(page, "All transcriptions")) === 6);

    await page.getByRole("button", { name: "Delete Archive" }).click();
    await page.getByRole("button", { name: "Confirm deleting Archive" }).click();
    await page.getByText("6 transcriptions.").waitFor();
    // The folder list is fetched again after the task list it was deleted from: waited for, not raced.
    await until(
      "the folder gone, its task uncategorized",
      async () => (await folderLink(page, "Archive").count()) === 0 && (await folderCount(page, "Uncategorized")) === 6,
    );

    // Select all on this page, then unselect.
    await page.getByLabel("Select all on this page").check();
    await page.getByRole("heading", { name: "6 tasks selected" }).waitFor();
    await page.getByLabel("Select all on this page").uncheck();
    expect(await page.getByRole("heading", { name: /selected$/ }).count()).toBe(0);
    web.expectClean();
  }, 30_000);

  test("a failed task shows its reason; Retry fetches it again, and the row follows it live", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/");
    const broken = row(page, "Broken link");
    await broken.getByText("The media could not be fetched").waitFor();
    expect(await page.locator("dt:text-is('Failed') + dd").textContent()).toBe("1");
    media.close();
    const fetches = media.held;
    await broken.getByRole("button", { name: "Retry Broken link" }).click();
    await until("the media fetched again", async () => media.held > fetches);
    await until("the row to show Waiting", async () => (await broken.locator(".status").textContent()) === "Waiting", 10_000);
    media.open();
    await broken.locator(".status", { hasText: "Failed" }).waitFor();
    await broken.getByText("the server answered 404").waitFor();
    web.expectClean();
  }, 30_000);

  test("a task's status turns to finished without reloading; the notifications' unread count, then marked read", async () => {
    web.checkpoint();
    const { page } = web;
    summaries.close();
    const live = await transcribed("Live talk");
    await page.goto("/");
    await row(page, "Live talk").locator(".status", { hasText: "Pending" }).waitFor();
    await page.evaluate("window.sameDocument = true");
    await page.screenshot({ path: join(screenshots, "task-list.png"), fullPage: true });
    summaries.open();
    await row(page, "Live talk").locator(".status", { hasText: "Finished" }).waitFor();
    expect(await page.evaluate("window.sameDocument")).toBe(true);
    expect(await status(live.id)).toBe("finished");

    const notifications = page.getByRole("region", { name: "Notifications" });
    await notifications.getByText(/^\d+ unread/).waitFor();
    await notifications.locator("summary").click();
    await notifications.getByRole("list", { name: "Latest notifications" }).getByText("Task finished").first().waitFor();
    expect(await notifications.getByRole("listitem").count()).toBeGreaterThanOrEqual(8);
    // The finished task's own notification comes from a projection of its own, maybe after the status did: once it is
    // there, "Mark all as read" has it to mark.
    await until(
      "the finished task's notification",
      async () => (await request<{ task_id: number | null }[]>("GET", "/api/notifications")).some((n) => n.task_id === live.id),
      20_000,
      250, // the session's 600 requests a minute are the page's too
    );
    await notifications.getByRole("button", { name: "Mark all as read" }).click();
    await notifications.getByText("No unread notifications").waitFor();
    const stored = await request<{ read_at: string | null }[]>("GET", "/api/notifications");
    expect(stored.every((n) => n.read_at !== null)).toBe(true);
    web.expectClean();
  }, 30_000);

  test("at 375 px and in the dark: one column, no sideways scroll, focus visible on the rows' controls", async () => {
    web.checkpoint();
    const { page } = web;
    await page.setViewportSize({ width: 375, height: 800 });
    await page.emulateMedia({ colorScheme: "dark" });
    await page.goto("/");
    await page.getByText("7 transcriptions.").waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    await page.screenshot({ path: join(screenshots, "task-list-375-dark.png"), fullPage: true });
    await page.getByLabel("Select all on this page").focus();
    for (let i = 0; i < 3; i++) await page.keyboard.press("Tab");
    expect(await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle")).not.toBe("none");
    await page.keyboard.press("Space");
    await page.getByRole("heading", { name: "1 task selected" }).waitFor();
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.emulateMedia({ colorScheme: "light" });
    web.expectClean();
  }, 30_000);
});
