/**
 * The share link's page as the server draws it, in a real browser at 127.0.0.1 with the newcomer's settings: with
 * script off (a reader without script, what a link preview reads) the transcript, its title and heading are there;
 * with script on, the app takes the drawn page over, and the two are never on the page together (one heading at
 * every moment). Nothing is requested from another origin, nothing logged as an error.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumAvailable, chromiumPath, startBrowserHarness, type BrowserHarness, untilInPage } from "../support/browser.ts";
import { until } from "../support/eventually.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

const lines = ["The orchard needs pruning before March.", "Carol will borrow the long ladder.", "We meet again on Saturday at ten."];
const segments = lines.map((text, i) => ({ start: i * 5000, end: i * 5000 + 4500, text, speaker: i % 2 === 0 ? "Carol" : "Dan" }));

describe.skipIf(!haveChromium)("the share page drawn by the server", () => {
  let web: BrowserHarness;
  let taskId: number;

  beforeAll(async () => {
    web = await startBrowserHarness();
    // An API client's three calls (the spec's 10 a minute on its token): register, create the task, share it.
    const call = async (path: string, body: unknown, token?: string, method = "POST") => {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await fetch(`${web.service.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as Record<string, unknown>;
    };
    const password = "correct horse battery";
    const { token } = (await call("/api/register", {
      name: "Carol",
      email: `share-${crypto.randomUUID()}@example.com`,
      password,
      password_confirmation: password,
    })) as {
      token: string;
    };
    taskId = (await call("/api/tasks", { name: "Orchard <plans>", disk: "objstore", path: "uploads/orchard.mp3", segments }, token)).id as number;
    await call(`/api/tasks/${taskId}/share-url`, undefined, token, "GET");
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("with script off, the transcript, its title and its heading are on the page", async () => {
    const context = await web.browser.newContext({ baseURL: web.service.url, javaScriptEnabled: false });
    try {
      const page = await context.newPage();
      await page.goto(`/share/tasks/${taskId}`);
      expect(await page.title()).toBe("Orchard <plans> · Scribe");
      await page.getByRole("heading", { name: "Orchard <plans>", level: 1 }).waitFor();
      const transcript = page.getByRole("region", { name: "Transcript" });
      expect(await transcript.locator("li").count()).toBe(lines.length);
      expect(await transcript.locator("li").first().textContent()).toBe(`0:00Carol${lines[0]}`);
      expect(await page.locator('meta[property="og:title"]').getAttribute("content")).toBe("Orchard <plans>");
    } finally {
      await context.close();
    }
  });

  test("with script on, the app takes the drawn page over without ever showing both", async () => {
    web.checkpoint();
    const { page } = web;
    // The most level-1 headings the page ever had at once (a string: the tests' TypeScript has no DOM).
    await page.addInitScript(`
      window.mostHeadings = 0;
      new MutationObserver(() => {
        window.mostHeadings = Math.max(window.mostHeadings, document.querySelectorAll("h1").length);
      }).observe(document, { subtree: true, childList: true });
    `);
    await page.goto(`/share/tasks/${taskId}`);
    // The app's own view: it says there is nothing to play (the task's file was never uploaded).
    await page.getByText("This transcript's media is not stored with us").waitFor();
    await untilInPage(page, 'document.querySelector("[data-share-task]") === null');
    expect(await page.getByRole("heading", { name: "Orchard <plans>", level: 1 }).count()).toBe(1);
    expect(await page.getByRole("region", { name: "Transcript" }).locator("li").count()).toBe(lines.length);
    expect(await page.evaluate<number>("window.mostHeadings")).toBe(1);
    // The app titles the tab "Shared transcript" until the transcript is in, then by its name, in an effect after the render.
    await until("the title to name the transcript", async () => (await page.title()) === "Orchard <plans> · Scribe");
    web.expectClean();
  });
});
