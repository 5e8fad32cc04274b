/**
 * The transcript page in a real browser against the started service, with real media: a tone uploaded through
 * the multipart API and a task on that file with supplied segments. Clicking a segment seeks the native player
 * (through the signed audio URL), the playing segment is marked, Space and ←/→ drive the player, a segment
 * plays alone at the chosen speed; an edit survives a reload, a failed save (the PATCH answered 500) keeps the
 * typed text and succeeds on Retry; find and replace is one edit that Undo takes back; a renamed speaker is in
 * the VTT export as a voice span, and in the pdf and docx the worker renders after the edit. Screenshots at
 * desktop width and at 375 px in light and dark.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import {
  chromiumAvailable,
  chromiumPath,
  startBrowserHarness,
  type BrowserHarness,
  screenshotsDir,
  registerThroughForm,
  untilInPage,
} from "../support/browser.ts";
import { finishedToneTask } from "../support/tone-task.ts";
import { UploadClient } from "../support/upload-client.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

const screenshots = screenshotsDir;
const sentences = [
  "Good morning and welcome to the garden committee.",
  "The tomato beds need new soil before spring.",
  "I will order the soil from the cooperative.",
  "Drip irrigation would help the tomato beds too.",
  "The budget allows two hundred euros for it.",
  "Then we meet again next Thursday at six.",
];
const segments = sentences.map((text, i) => ({ start: i * 4000, end: i * 4000 + 3500, text, speaker: i % 2 === 0 ? "SPEAKER_00" : "SPEAKER_01" }));

type Media = { currentTime: number; paused: boolean; playbackRate: number; readyState: number };
// Browser-side code as strings: the test files are type-checked without the DOM's types.
const player = 'document.querySelector("audio")';
const media = (page: Page): Promise<Media> =>
  page.evaluate(`(({ currentTime, paused, playbackRate, readyState }) => ({ currentTime, paused, playbackRate, readyState }))(${player})`);

setDefaultTimeout(30_000);

describe.skipIf(!haveChromium)("the transcript page: player, segments and editing", () => {
  let web: BrowserHarness;
  let client: UploadClient;
  let taskId: number;
  const segmentButton = (page: Page, text: string) => page.getByRole("button", { name: text });

  beforeAll(async () => {
    web = await startBrowserHarness();
    client = new UploadClient(
      web.service.url,
      (await registerThroughForm(web.page, { name: "Grace Hopper", email: `transcript-${crypto.randomUUID()}@example.com` })).headers,
    );
    // 24 s of tone: real media that the <audio> element streams and seeks (the words are supplied, not recognised).
    taskId = await finishedToneTask(client, { name: "Garden committee", file: "meeting.wav", seconds: 24, segments });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("clicking a segment seeks the player there and marks it; Space and ←/→ drive the player", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${taskId}`);
    await page.getByRole("heading", { name: "Garden committee" }).waitFor();
    await untilInPage(page, `(${player}?.readyState ?? 0) >= 1`);
    expect(await page.locator("audio").getAttribute("src")).toMatch(new RegExp(`^/api/tasks/${taskId}/audio/signed\\?`));

    const third = segmentButton(page, sentences[2]!);
    await third.click();
    await untilInPage(page, `Math.abs(${player}.currentTime - 8) < 0.05`);
    expect(await third.getAttribute("aria-current")).toBe("true");
    expect(await page.locator('[aria-current="true"]').count()).toBe(1);

    // The shortcuts belong to the page, not to a focused button or field.
    await page.locator("h1").click();
    await page.keyboard.press("ArrowRight");
    expect((await media(page)).currentTime).toBeCloseTo(13, 1);
    expect(await segmentButton(page, sentences[3]!).getAttribute("aria-current")).toBe("true");
    await page.keyboard.press("ArrowLeft");
    await page.keyboard.press("ArrowLeft");
    expect((await media(page)).currentTime).toBeCloseTo(3, 1);
    await page.keyboard.press("Space");
    await untilInPage(page, `!${player}.paused`);
    await page.keyboard.press("Space");
    expect((await media(page)).paused).toBe(true);
    // Typing a space in a field is a space, not a pause.
    await page.getByText("Edit tools: find and replace, speakers").click();
    await page.getByLabel("Find", { exact: true }).fill("a b");
    expect((await media(page)).paused).toBe(true);
    await page.getByLabel("Find", { exact: true }).fill("");
    web.expectClean();
  });

  test("Play segment plays just that segment, at the chosen speed", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByLabel("Speed").selectOption("2");
    expect((await media(page)).playbackRate).toBe(2);
    // What the player does, in order and where, recorded in the page: no window of wall time that a slow machine misses.
    await page.evaluate(
      `(() => { const el = ${player}; const log = (window.playerEvents = []); for (const type of ["seeked", "playing", "pause", "ended"]) el.addEventListener(type, () => log.push({ type, time: el.currentTime, rate: el.playbackRate })); })()`,
    );
    // The fourth segment (0:12 to 0:15.5) has the fifth (0:16 to 0:19.5) after it: a player that played on is caught.
    await page.getByRole("button", { name: "Play segment at 0:12 (SPEAKER_01)" }).click();
    await untilInPage(page, 'window.playerEvents.some((e) => e.type === "pause")', 20_000);
    const events = (await page.evaluate("window.playerEvents")) as { type: string; time: number; rate: number }[];
    const at = (type: string) => events.findIndex((e) => e.type === type);
    // It went to the segment's start and played at 2×, then paused by itself, once, at the segment's end: before the
    // next segment's end, and not at the media's.
    expect(events[at("seeked")]?.time).toBeCloseTo(12, 1);
    expect(at("playing")).toBeGreaterThanOrEqual(0);
    expect(at("playing")).toBeLessThan(at("pause"));
    expect(events[at("playing")]!.rate).toBe(2);
    expect(events.filter((e) => e.type === "pause")).toHaveLength(1);
    expect(at("ended")).toBe(-1);
    const stopped = events[at("pause")]!;
    expect(stopped.time).toBeGreaterThanOrEqual(15.4);
    expect(stopped.time).toBeLessThan(19.5);
    expect((await media(page)).paused).toBe(true);
    web.expectClean();
  });

  test("an edit is saved through PATCH and kept after a reload", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Edit segment at 0:00 (SPEAKER_00)" }).click();
    const box = page.getByLabel("Text at 0:00 (SPEAKER_00)");
    await untilInPage(page, 'document.activeElement?.tagName === "TEXTAREA"'); // the box takes the focus
    await box.fill("Good morning, and welcome to the garden committee!");
    await page.locator("#segment-1").getByRole("button", { name: "Save" }).click();
    await segmentButton(page, "Good morning, and welcome to the garden committee!").waitFor();
    // Focus goes back to the segment's Edit button.
    await untilInPage(page, 'document.activeElement?.id === "edit-1"');
    await page.reload();
    await segmentButton(page, "Good morning, and welcome to the garden committee!").waitFor();
    const task = await client.json<{ segments: { id: number; text: string }[] }>("GET", `/api/tasks/${taskId}`);
    expect(task.segments.map((s) => s.id)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(task.segments[0]!.text).toBe("Good morning, and welcome to the garden committee!");
    web.expectClean();
  });

  test("a failed save is shown next to the segment, keeps every typed character, and Retry saves it", async () => {
    const { page } = web;
    // The page reads and saves with ?include=words: the pattern takes the query.
    const taskUrl = new RegExp(`/api/tasks/${taskId}(\\?.*)?$`);
    await page.route(taskUrl, (route) =>
      route.request().method() === "PATCH" ? route.fulfill({ status: 500, json: { message: "The server failed." } }) : route.continue(),
    );
    await page.getByRole("button", { name: "Edit segment at 0:04 (SPEAKER_01)" }).click();
    const box = page.getByLabel("Text at 0:04 (SPEAKER_01)");
    await box.fill("The tomato beds need fresh soil before spring, says Bob.");
    await page.locator("#segment-2").getByRole("button", { name: "Save" }).click();
    const alert = page.getByRole("alert").filter({ hasText: "Not saved" });
    await alert.waitFor();
    expect(await alert.textContent()).toContain("The server failed.");
    expect(await box.inputValue()).toBe("The tomato beds need fresh soil before spring, says Bob.");
    expect(await box.getAttribute("aria-invalid")).toBe("true");
    await page.unroute(taskUrl);
    web.checkpoint(); // the 500 above was the point; from here on, nothing may fail
    await page.locator("#segment-2").getByRole("button", { name: "Retry" }).click();
    await segmentButton(page, "The tomato beds need fresh soil before spring, says Bob.").waitFor();
    expect((await client.json<{ segments: { text: string }[] }>("GET", `/api/tasks/${taskId}`)).segments[1]!.text).toBe(
      "The tomato beds need fresh soil before spring, says Bob.",
    );
    web.expectClean();
  });

  test("find and replace across the transcript is one edit, and Undo takes it back", async () => {
    web.checkpoint();
    const { page } = web;
    const tools = page.locator("details.transcript-tools");
    if ((await tools.getAttribute("open")) === null) await page.getByText("Edit tools: find and replace, speakers").click();
    await page.getByLabel("Find", { exact: true }).fill("TOMATO");
    await page.getByText("2 matches").waitFor();
    await page.getByLabel("Match case").check();
    await page.getByText("0 matches").waitFor();
    await page.getByLabel("Match case").uncheck();
    await page.getByLabel("Replace with").fill("pepper");
    await page.getByRole("button", { name: "Replace all" }).click();
    await page.getByText("Replaced 2 × “TOMATO”.").waitFor();
    await segmentButton(page, "Drip irrigation would help the pepper beds too.").waitFor();
    const texts = async () => (await client.json<{ segments: { text: string }[] }>("GET", `/api/tasks/${taskId}`)).segments.map((s) => s.text);
    expect((await texts()).filter((text) => text.includes("pepper"))).toHaveLength(2);

    await page.getByRole("button", { name: "Undo replace “TOMATO”" }).click();
    await segmentButton(page, "Drip irrigation would help the tomato beds too.").waitFor();
    expect((await texts()).filter((text) => text.includes("tomato"))).toHaveLength(2);
    // The edit before it is next in line.
    await page.getByRole("button", { name: "Undo edit at 0:04" }).waitFor();
    web.expectClean();
  });

  test("a speaker renamed everywhere is in every light export, as <v Name> in VTT", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByLabel("Name for SPEAKER_00").fill("Ada <Chair> & co");
    // The Speakers tool's Rename (the page's heading has one for the task's name).
    await page.getByRole("region", { name: "Speakers" }).getByRole("button", { name: "Rename" }).first().click();
    await page.getByLabel("Name for Ada <Chair> & co").waitFor();
    expect(await page.locator(".segment-speaker").allTextContents()).toEqual([
      "Ada <Chair> & co",
      "SPEAKER_01",
      "Ada <Chair> & co",
      "SPEAKER_01",
      "Ada <Chair> & co",
      "SPEAKER_01",
    ]);
    const download = async (format: string) => (await client.call("GET", `/api/tasks/${taskId}/download/${format}`)).text();
    const vtt = await download("vtt");
    // Cues are shaped for reading (at most 42 characters a line): the sentence takes two lines.
    expect(vtt).toContain("<v Ada &lt;Chair&gt; &amp; co>Good morning, and welcome\nto the garden committee!");
    expect(vtt).toContain("<v SPEAKER_01>");
    expect(await download("srt")).toContain("Ada <\u200bChair> & co: Good morning");
    expect(await download("txt")).toContain("Ada <Chair> & co: I will order the soil");
    expect(await download("csv")).toContain(",Ada <Chair> & co,");
    web.expectClean();
  });

  test("the pdf and docx the worker renders after the rename carry the new name", async () => {
    const dir = mkdtempSync(join(tmpdir(), "transcript-exports-"));
    const version = (await client.json<{ export: { version: string } }>("GET", `/api/tasks/${taskId}`)).export.version;
    const file = async (format: "pdf" | "docx") => {
      for (let tries = 0; ; tries++) {
        const answer = await client.call("GET", `/api/tasks/${taskId}/download/${format}`, undefined, { accept: "application/json" });
        const body = (await answer.json()) as { url?: string };
        if (answer.status === 200 && body.url?.includes(version)) {
          const path = join(dir, `export.${format}`);
          writeFileSync(path, new Uint8Array(await (await fetch(body.url)).arrayBuffer()));
          return path;
        }
        if (tries > 300) throw new Error(`no ${format} of version ${version}: ${answer.status}`);
        await Bun.sleep(100);
      }
    };
    const text = (command: string[]) => new TextDecoder().decode(Bun.spawnSync(command).stdout);
    expect(text(["pdftotext", "-enc", "UTF-8", await file("pdf"), "-"]).replace(/\s+/g, " ")).toContain("Ada <Chair> & co: Good morning");
    const docx = await file("docx");
    // The docx is a zip; its body is word/document.xml (Python's zipfile reads it, as the exports tests use Python).
    const xml = text(["python3", "-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read('word/document.xml').decode())", docx]);
    expect(xml).toContain("Ada &lt;Chair&gt; &amp; co: ");
    expect(xml).not.toContain("SPEAKER_00");
  });

  test("keyboard alone at 375 px, light and dark, with screenshots", async () => {
    web.checkpoint();
    const { page } = web;
    await page.setViewportSize({ width: 1100, height: 900 });
    await page.goto(`/tasks/${taskId}`);
    await untilInPage(page, `(${player}?.readyState ?? 0) >= 1`);
    await segmentButton(page, sentences[3]!).click();
    await page.locator("h1").click();
    await page.screenshot({ path: join(screenshots, "transcript.png"), fullPage: true });

    await page.setViewportSize({ width: 375, height: 800 });
    for (const scheme of ["light", "dark"] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`/tasks/${taskId}`);
      await page.getByRole("heading", { name: "Garden committee" }).waitFor();
      // The player must know its media before a seek lands (on a busy machine the page draws first).
      await untilInPage(page, `(${player}?.readyState ?? 0) >= 1`);
      expect(await page.evaluate("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
      // Tab to the first segment and press Enter: it seeks, with the focus ring showing.
      const first = segmentButton(page, "Good morning, and welcome to the garden committee!");
      await first.focus();
      await page.keyboard.press("Enter");
      await untilInPage(page, `document.activeElement?.getAttribute("aria-current") === "true"`);
      expect(await page.evaluate("getComputedStyle(document.activeElement).outlineStyle")).toBe("solid");
      await page.keyboard.press("Tab"); // Play segment
      await page.keyboard.press("Tab"); // Edit
      await page.keyboard.press("Enter");
      await page.getByLabel("Text at 0:00 (Ada <Chair> & co)").waitFor();
      await page.keyboard.press("Escape");
      await page.screenshot({ path: join(screenshots, `transcript-375-${scheme}.png`), fullPage: true });
    }
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 720 });
    web.expectClean();
  });
});
