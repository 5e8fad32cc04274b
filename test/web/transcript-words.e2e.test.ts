/**
 * Timed words on the transcript page, in a real browser against the started service with real media (a tone). The
 * page reads the task with `?include=words`; a transcript a client supplies has no timed words, so the test gives the
 * service's answers the words an engine would have timed (route interception: what the API does with words is
 * test/tasks/task-words.int.test.ts's). Each word is its own element, low-confidence ones are marked (style, title and
 * a note, not colour alone), clicking a word seeks the player to its start, and an edited segment shows plain text.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import type { Page, Route } from "playwright-core";
import { chromiumAvailable, chromiumPath, startBrowserHarness, type BrowserHarness, registerThroughForm, untilInPage } from "../support/browser.ts";
import { finishedToneTask } from "../support/tone-task.ts";
import { UploadClient } from "../support/upload-client.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { librispeech, librispeechDir } from "../support/media-fixtures.ts";
import { until } from "../support/eventually.ts";
import { existsSync } from "node:fs";
import { join } from "node:path";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

type Word = { text: string; start: number; end: number; confidence: number | null };
type ShownSegment = { id: number; text: string; words?: Word[] };

const first = "Ask not what your country can do.";
const second = "Then we meet again.";
const segments = [
  { start: 0, end: 3500, text: first, speaker: "SPEAKER_00" },
  { start: 4000, end: 7000, text: second, speaker: "SPEAKER_01" },
  { start: 8000, end: 11_000, text: "Supplied without words.", speaker: "SPEAKER_00" },
];
// "not" and "can" below the threshold (0.5); "what" exactly at it and "your" without a confidence are not marked.
const timed: Record<string, Word[]> = {
  [first]: [
    { text: "ask", start: 200, end: 500, confidence: 0.95 },
    { text: "not", start: 500, end: 900, confidence: 0.31 },
    { text: "what", start: 1000, end: 1300, confidence: 0.5 },
    { text: "your", start: 1300, end: 1600, confidence: null },
    { text: "country", start: 1700, end: 2300, confidence: 0.9 },
    { text: "can", start: 2400, end: 2700, confidence: 0.49 },
    { text: "do", start: 2800, end: 3200, confidence: 0.88 },
  ],
  [second]: [
    { text: "then", start: 4200, end: 4600, confidence: 0.9 },
    { text: "we", start: 4800, end: 5000, confidence: 0.9 },
    { text: "meet", start: 5500, end: 5900, confidence: 0.9 },
    { text: "again", start: 6100, end: 6800, confidence: 0.9 },
  ],
};

/** The service's answer with the words an engine would have timed, on segments whose text is still the recognised one. */
async function withEngineWords(route: Route): Promise<void> {
  const response = await route.fetch();
  if (!response.ok()) return route.fulfill({ response });
  const task = (await response.json()) as { segments: ShownSegment[] | null };
  for (const segment of task.segments ?? []) segment.words = timed[segment.text] ?? [];
  await route.fulfill({ response, json: task });
}

type Media = { currentTime: number; readyState: number };
// Browser-side code as strings: the test files are type-checked without the DOM's types.
const player = 'document.querySelector("audio")';
const media = (page: Page): Promise<Media> => page.evaluate(`(({ currentTime, readyState }) => ({ currentTime, readyState }))(${player})`);
const wordTexts = (page: Page, id: number) => page.locator(`#segment-${id} .word`).allTextContents();

setDefaultTimeout(30_000);

describe.skipIf(!haveChromium)("the transcript page's timed words", () => {
  let web: BrowserHarness;
  let client: UploadClient;
  let taskId: number;
  const asked: string[] = [];

  beforeAll(async () => {
    web = await startBrowserHarness();
    client = new UploadClient(
      web.service.url,
      (await registerThroughForm(web.page, { name: "Ada Lovelace", email: `words-${crypto.randomUUID()}@example.com` })).headers,
    );
    taskId = await finishedToneTask(client, { name: "Inaugural", file: "speech.wav", seconds: 12, segments });
    web.context.on("request", (request) => {
      if (new URL(request.url()).pathname === `/api/tasks/${taskId}`) asked.push(`${request.method()} ${new URL(request.url()).search}`);
    });
    await web.page.route(new RegExp(`/api/tasks/${taskId}\\?include=words$`), withEngineWords);
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("each word is its own element; low-confidence ones are marked with a style, a title and a note", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${taskId}`);
    await page.getByRole("heading", { name: "Inaugural" }).waitFor();
    await page.locator("#segment-1 .word").first().waitFor();
    expect(asked).toContain("GET ?include=words");

    // The segment's own text, word by word (sentence case and full stop included), still one button named by it.
    expect(await wordTexts(page, 1)).toEqual(first.split(" "));
    expect(await wordTexts(page, 2)).toEqual(second.split(" "));
    expect(await page.locator("#segment-3 .word").count()).toBe(0);
    expect(await page.locator("#segment-3 .segment-text").textContent()).toBe("Supplied without words.");
    await page.getByRole("button", { name: first }).waitFor();

    const marked = page.locator("#segment-1 mark.word.uncertain");
    expect(await marked.allTextContents()).toEqual(["not", "can"]);
    expect(await marked.first().getAttribute("title")).toBe("Low confidence (31%): check this word");
    expect(await marked.last().getAttribute("title")).toBe("Low confidence (49%): check this word");
    // Not by colour alone: the marked word is underlined, the others are not.
    const underline = (selector: string) => page.evaluate(`getComputedStyle(document.querySelector(${JSON.stringify(selector)})).textDecorationLine`);
    expect(await underline("#segment-1 mark.word.uncertain")).toContain("underline");
    expect(await underline("#segment-1 span.word")).toBe("none");
    expect(await page.locator("#segment-1 .word", { hasText: "what" }).getAttribute("title")).toBe("Confidence 50%");
    expect(await page.locator("#segment-1 .word", { hasText: "your" }).getAttribute("title")).toBeNull();
    const note = page.locator(".uncertain-note");
    expect(await note.textContent()).toContain("2 words the recognition was unsure of (confidence below 50%) are marked like this");
    web.expectClean();
  });

  test("clicking a word seeks the player to its start; the segment's time still seeks to the segment's", async () => {
    web.checkpoint();
    const { page } = web;
    await untilInPage(page, `(${player}?.readyState ?? 0) >= 1`);
    await page.locator("#segment-1 .word", { hasText: "country" }).click();
    await untilInPage(page, `Math.abs(${player}.currentTime - 1.7) < 0.05`);
    await page.locator("#segment-2 .word", { hasText: "meet" }).click();
    await untilInPage(page, `Math.abs(${player}.currentTime - 5.5) < 0.05`);
    expect(await page.getByRole("button", { name: second }).getAttribute("aria-current")).toBe("true");
    await page.locator("#segment-1 mark.word", { hasText: "can" }).click();
    await untilInPage(page, `Math.abs(${player}.currentTime - 2.4) < 0.05`);
    await page.locator("#segment-2 .segment-time").click();
    await untilInPage(page, `Math.abs(${player}.currentTime - 4) < 0.05`);
    expect((await media(page)).currentTime).toBeCloseTo(4, 1);
    web.expectClean();
  });

  test("an edited segment shows plain text; the others keep their words", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Edit segment at 0:04 (SPEAKER_01)" }).click();
    await page.getByLabel("Text at 0:04 (SPEAKER_01)").fill("Then we meet again on Thursday.");
    await page.locator("#segment-2").getByRole("button", { name: "Save" }).click();
    await page.getByRole("button", { name: "Then we meet again on Thursday." }).waitFor();
    // The save asks for the words too (the interception's own fetch is seen as a request as well).
    expect([...new Set(asked.filter((request) => request.startsWith("PATCH")))]).toEqual(["PATCH ?include=words"]);
    expect(await page.locator("#segment-2 .word").count()).toBe(0);
    expect(await page.locator("#segment-2 .segment-text").textContent()).toBe("Then we meet again on Thursday.");
    expect(await wordTexts(page, 1)).toEqual(first.split(" "));
    // Clicking the plain segment seeks to its start, as before.
    await page.getByRole("button", { name: "Then we meet again on Thursday." }).click();
    await untilInPage(page, `Math.abs(${player}.currentTime - 4) < 0.05`);
    web.expectClean();
  });

  const clip = "1089-134691-0001";
  const haveClip = prerequisite(
    `LibriSpeech clip ${clip}`,
    existsSync(join(librispeechDir, `${clip}.flac`)),
    "put the LibriSpeech clips under ../shared/testdata",
  );

  test.skipIf(!haveClip)("a recording the service recognised: its words on the page, as the API gives them, marked and seekable", async () => {
    web.checkpoint();
    const { page } = web;
    const bytes = librispeech(clip)!.bytes;
    const session = await client.sign("reading.flac", "audio/flac", bytes.byteLength);
    await client.putAll(session, new Blob([bytes]));
    expect((await client.complete(session, "reading.flac", "audio/flac", bytes.byteLength)).status).toBe(201);
    const { id } = await client.json<{ id: number }>(
      "POST",
      "/api/tasks",
      { disk: "objstore", name: "Reading", path: session.path, file: "reading.flac" },
      201,
    );
    let words: Word[] = [];
    await until(
      "the recording recognised",
      async () => {
        const task = await client.json<{ status: string; segments: ShownSegment[] | null }>("GET", `/api/tasks/${id}?include=words`);
        words = (task.segments ?? []).flatMap((segment) => segment.words ?? []);
        return task.status === "finished";
      },
      30_000,
    );
    expect(words.length).toBeGreaterThan(3);

    await page.goto(`/tasks/${id}`);
    await page.getByRole("heading", { name: "Reading" }).waitFor();
    await page.locator(".segments .word").first().waitFor();
    expect(await page.locator(".segments .word").count()).toBe(words.length);
    const unsure = words.filter((word) => word.confidence !== null && word.confidence < 0.5).length;
    expect(await page.locator(".segments mark.word.uncertain").count()).toBe(unsure);
    await untilInPage(page, `(${player}?.readyState ?? 0) >= 1`);
    const third = words[2]!;
    await page.locator(".segments .word").nth(2).click();
    await untilInPage(page, `Math.abs(${player}.currentTime - ${third.start / 1000}) < 0.05`);
    web.expectClean();
  });
});
