/**
 * The transcript page's extras and the public share page in a real browser against the started service: a
 * finished task's summary and its mind map as a tree that opens and closes (keyboard too); TXT and PDF saved
 * through the browser's downloads (the PDF "Preparing…" while the worker renders the edited transcript); the
 * share link copied; the history as a timeline; then the share link in a fresh browser context, with no
 * session: the transcript read-only with the transcript page's player (a segment seeks it, the playing one is
 * marked, the shortcuts drive it), which stops playing once the owner stops sharing. The task is on real media (a
 * tone uploaded through the multipart API). No request leaves the service's origin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFile } from "node:fs/promises";
import { chromiumAvailable, chromiumPath, startBrowserHarness, type BrowserHarness, registerThroughForm, untilInPage } from "../support/browser.ts";
import { finishedToneTask } from "../support/tone-task.ts";
import { UploadClient } from "../support/upload-client.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

const sentences = [
  "Welcome to the weekly planning meeting of the garden project.",
  "The tomato beds need new soil before the spring planting starts.",
  "Alice will order the soil from the cooperative on Monday.",
  "The watering schedule changes when the weather turns warm.",
  "Bob suggested drip irrigation for the tomato beds and the herbs.",
  "Drip irrigation saves water and keeps the leaves dry.",
  "The budget for irrigation is two hundred euros this season.",
  "Volunteers are needed for the harvest festival in September.",
  "The festival will sell preserves made from the garden's fruit.",
  "Everyone agreed to meet again next Thursday at six.",
];
const segments = sentences.map((text, i) => ({ start: i * 4000, end: i * 4000 + 3500, text, speaker: i % 2 === 0 ? "Alice" : "Bob" }));

// Browser-side code as strings: the test files are type-checked without the DOM's types.
const player = 'document.querySelector("audio")';

describe.skipIf(!haveChromium)("the transcript page's extras and the share page", () => {
  let web: BrowserHarness;
  /** The page's session, for the test's own API calls (registerThroughForm). */
  let session: Record<string, string>;
  let taskId: number;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${web.service.url}${path}`, { ...init, headers: { ...session, "content-type": "application/json", ...init.headers } });

  beforeAll(async () => {
    // Exports only on request: the PDF after the edit is then always "Preparing…" (made ahead of time, it could be ready first).
    web = await startBrowserHarness({ env: () => ({ EXPORT_AHEAD_OF_TIME: "0" }) });
    await web.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.origin });
    session = (await registerThroughForm(web.page, { email: `extras-${crypto.randomUUID()}@example.com` })).headers;
    // 40 s of tone for the share page's player; the task finishes through the worker, then gets its summary.
    const client = new UploadClient(web.service.url, session);
    taskId = await finishedToneTask(client, { name: "Garden meeting", file: "garden.wav", seconds: 40, segments, summarized: true });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("the summary, and the mind map as a tree that collapses and expands (mouse and keyboard)", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${taskId}`);
    const summary = page.getByRole("region", { name: "Summary" });
    await summary.waitFor();
    expect((await summary.textContent())?.length).toBeGreaterThan(20);

    const map = page.getByRole("region", { name: "Mind map" });
    const branches = map.locator("details");
    expect(await branches.count()).toBeGreaterThan(1);
    expect(await map.locator("summary").first().textContent()).toBe("Garden meeting"); // the outline's title
    const topic = branches.nth(1);
    const point = topic.locator("li").first();
    expect(await point.isVisible()).toBe(true);
    await topic.locator("summary").click();
    expect(await topic.getAttribute("open")).toBeNull();
    expect(await point.isVisible()).toBe(false);
    await topic.locator("summary").focus();
    await page.keyboard.press("Enter");
    await point.waitFor({ state: "visible" });

    await map.getByRole("button", { name: "Collapse all" }).click();
    expect(await map.locator("details[open]").count()).toBe(0);
    await map.getByRole("button", { name: "Expand all" }).click();
    expect(await map.locator("details:not([open])").count()).toBe(0);
    web.expectClean();
  });

  test("TXT downloads at once; PDF says Preparing… while the edited transcript is rendered, then downloads", async () => {
    web.checkpoint();
    const { page } = web;
    const exports = page.getByRole("region", { name: "Export" });
    for (const name of ["TXT", "SRT", "VTT", "CSV", "JSON", "PDF", "DOCX"]) expect(await exports.getByRole("button", { name, exact: true }).count()).toBe(1);

    const [txt] = await Promise.all([page.waitForEvent("download"), exports.getByRole("button", { name: "TXT", exact: true }).click()]);
    expect(txt.suggestedFilename()).toBe("Garden meeting.txt");
    const text = await readFile(await txt.path(), "utf8");
    expect(text.split("\n").slice(0, 2)).toEqual([`Alice: ${sentences[0]}`, `Bob: ${sentences[1]}`]);

    // An edit makes the current PDF stale: the API answers 202 until the worker has rendered the new one.
    const edited = segments.map((s, i) => (i === 9 ? { ...s, text: "Everyone agreed to meet again next Friday at six." } : s));
    expect((await api(`/api/tasks/${taskId}`, { method: "PATCH", body: JSON.stringify({ segments: edited }) })).status).toBe(200);
    const pdfButton = exports.getByRole("button", { name: "PDF", exact: true });
    const downloaded = page.waitForEvent("download", { timeout: 30_000 });
    await pdfButton.click();
    await exports.getByText("Preparing…").waitFor();
    expect(await pdfButton.getAttribute("aria-busy")).toBe("true");
    expect(await exports.getByRole("status").textContent()).toContain("Preparing the PDF");
    const pdf = await downloaded;
    expect(pdf.suggestedFilename()).toBe("Garden meeting.pdf");
    expect((await readFile(await pdf.path())).subarray(0, 5).toString("latin1")).toBe("%PDF-");
    await exports.getByRole("status").filter({ hasText: "Downloaded" }).waitFor();
    expect(await pdfButton.getAttribute("aria-busy")).toBe("false");
    web.expectClean();
  });

  test("Copy share link puts the link on the clipboard; the history lists the task's events", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Copy share link" }).click();
    await page.getByText("Share link copied.").waitFor();
    // A link that leaves the app names the service's PUBLIC_URL (http://localhost:PORT when unset), not the page's address.
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(`${web.publicUrl}/share/tasks/${taskId}`);

    const timeline = page.getByRole("list", { name: "Events of this transcription, oldest first" });
    await timeline.getByText("Shared", { exact: true }).waitFor();
    const events = await timeline.locator("li .what").allTextContents();
    expect(events[0]).toBe("Created");
    for (const type of ["Finished transcribing", "Edited the transcript", "Export requested · PDF", "Export made · PDF"]) {
      expect(events.some((e) => e.startsWith(type)) ? type : events).toBe(type);
    }
    expect(await timeline.locator("li .who").first().textContent()).toBe("by you");
    expect(await timeline.locator("li time").first().getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    web.expectClean();
  });

  test("the share link in a fresh browser context (no session): the transcript, read-only, with its player, all from the origin", async () => {
    // Shared by "Copy share link" above; asked again here (it is idempotent) so that this test stands alone.
    expect((await api(`/api/tasks/${taskId}/share-url`)).status).toBe(200);
    const fresh = await web.browser.newContext({ baseURL: web.service.url });
    const strays: string[] = [];
    const errors: string[] = [];
    fresh.on("request", (request) => {
      if (new URL(request.url()).origin !== web.origin && /^https?:/.test(request.url())) strays.push(request.url());
    });
    try {
      const page = await fresh.newPage();
      page.on("console", (message) => message.type() === "error" && errors.push(message.text()));
      page.on("pageerror", (error) => errors.push(error.message));
      await page.goto(`/share/tasks/${taskId}`);
      await page.getByRole("heading", { name: "Garden meeting", level: 1 }).waitFor();
      const transcript = page.getByRole("region", { name: "Transcript" });
      const items = transcript.locator("li");
      expect(await items.count()).toBe(segments.length);
      expect(await items.first().locator(".segment-seek").textContent()).toBe(`0:00Alice${sentences[0]}`);
      expect(await items.last().locator(".segment-seek").textContent()).toMatch(/^0:36BobEveryone agreed to meet again next (Thursday|Friday) at six\.$/);
      await page.getByRole("region", { name: "Summary" }).waitFor();
      await page.getByRole("region", { name: "Mind map" }).waitFor();
      // Read-only: nothing to edit, export or share, and no session was made.
      expect(await page.locator("input, textarea, [contenteditable]").count()).toBe(0);
      for (const name of ["Edit", "TXT", "PDF", "Copy share link", "Sign out", "Undo"]) expect(await page.getByRole("button", { name }).count()).toBe(0);
      expect(await page.getByRole("button", { name: /^Play segment/ }).count()).toBe(segments.length);
      expect((await fresh.cookies()).map((c) => c.name)).not.toContain("scribe_session");

      // The transcript page's player, on the share JSON's signed URL: a segment seeks it and is marked.
      const src = await page.locator("audio").getAttribute("src");
      expect(src).toMatch(new RegExp(`^/share/tasks/${taskId}/audio\\?expires=\\d+&signature=[\\w-]+$`));
      await untilInPage(page, `(${player}?.readyState ?? 0) >= 1`);
      const third = page.getByRole("button", { name: sentences[2]! });
      await third.click();
      await untilInPage(page, `Math.abs(${player}.currentTime - 8) < 0.05`);
      expect(await third.getAttribute("aria-current")).toBe("true");
      expect(await page.locator('[aria-current="true"]').count()).toBe(1);
      await page.locator("h1").click();
      await page.keyboard.press("ArrowRight");
      await untilInPage(page, `Math.abs(${player}.currentTime - 13) < 0.05`);
      expect(await page.getByRole("button", { name: sentences[3]! }).getAttribute("aria-current")).toBe("true");
      await page.getByLabel("Speed").selectOption("1.5");
      expect(await page.evaluate(`${player}.playbackRate`)).toBe(1.5);
      await page.locator("h1").click();
      await page.keyboard.press("Space");
      await untilInPage(page, `!${player}.paused`);
      await page.keyboard.press("Space");
      await untilInPage(page, `${player}.paused`);

      // Once the owner stops sharing, the page's audio URL stops at once and the link says so.
      expect((await api(`/api/tasks/${taskId}/share-url`, { method: "DELETE" })).status).toBe(200);
      expect((await fetch(`${web.service.url}${src}`, { headers: { range: "bytes=0-99" } })).status).toBe(404);
      await page.reload();
      await page.getByRole("heading", { name: "This transcript is not shared" }).waitFor();
      expect(strays).toEqual([]);
      expect(errors.filter((e) => !/status of 404/.test(e))).toEqual([]);
    } finally {
      await fresh.close();
    }
  });
});
