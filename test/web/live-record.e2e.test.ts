/**
 * Live captions on the Record page end to end: Chromium's fake microphone plays a LibriSpeech clip (16 kHz mono WAV,
 * with a pause after it, looped) to the started service with a newcomer's settings (the page at 127.0.0.1, no
 * PUBLIC_URL, default limits but the shortest session, 10 s). The words show while recording, Stop opens the task the
 * live session became, and the task is there, finished, with the words in its transcript. A session the server ends
 * first (its maximum length) stops the recording, and its task is the recording's: nothing is uploaded as well. The
 * page's side against a stand-in server (what it sends, a refusal's fallback, each way a session ends):
 * live-record-client.e2e.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness, type BrowserSession } from "../support/browser.ts";
import { until } from "../support/eventually.ts";
import { ffmpeg, librispeech, librispeechDir } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";

/** "HE COULD WAIT NO LONGER", 2.1 s. */
const clip = "1089-134691-0000";
const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");
const haveClip = haveChromium && librispeech(clip) !== null;

type Task = { id: number; status: string; segments: { text: string }[] | null };

/** The shortest session the settings allow: the second test's session ends by itself, as the server decides. */
const maxSessionSeconds = 10;

describe.skipIf(!haveClip)("live captions on the Record page, end to end", () => {
  let web: BrowserHarness;
  let session: BrowserSession;

  beforeAll(async () => {
    // 1.5 s of silence after the words, so that the server's voice detection ends each turn as the clip loops.
    const wav = join(mkdtempSync(join(tmpdir(), "scribe-live-record-")), `${clip}.wav`);
    await ffmpeg("-i", join(librispeechDir, `${clip}.flac`), "-af", "apad=pad_dur=1.5", "-ar", "16000", "-ac", "1", "-c:a", "pcm_s16le", wav);
    web = await startBrowserHarness({
      env: () => ({ LIVE_SESSION_MAX_SECONDS: String(maxSessionSeconds) }),
      chromiumArgs: ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${wav}`],
    });
    await web.context.grantPermissions(["microphone"], { origin: web.origin });
    session = await registerThroughForm(web.page, { name: "Ada Live", email: `live-record-${crypto.randomUUID()}@example.com` });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  /** The task `id` once finished, as its owner reads it through the API. */
  const finishedTask = (id: number) =>
    until(
      "the live session's task finished",
      async () => {
        const answer = await fetch(new URL(`/api/tasks/${id}`, web.service.url), { headers: session.headers });
        expect(answer.status).toBe(200);
        const now = (await answer.json()) as Task;
        if (now.status === "failed") throw new Error(`the live session's task failed: ${JSON.stringify(now)}`);
        return now.status === "finished" ? now : null;
      },
      30_000,
      500,
    );

  /** The page's requests that would upload a recording. */
  const watchUploads = (page: Page) => {
    const uploads: string[] = [];
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname.startsWith("/api/uploads/")) uploads.push(request.url());
    });
    return uploads;
  };

  test("the words show as they are spoken, beside the meter and the clock; Stop opens the task, which is there with them", async () => {
    web.checkpoint();
    const { page } = web;
    const sockets: string[] = [];
    page.on("websocket", (socket) => sockets.push(socket.url()));
    const uploads = watchUploads(page);
    await page.goto("/new");
    await page.getByRole("heading", { name: "Or record from the microphone" }).waitFor();
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await page.getByRole("meter", { name: "Microphone level" }).waitFor();

    // A finished turn in the log (what screen readers read out) with the clip's words.
    const log = page.getByRole("log", { name: "Live captions" });
    await until("a caption with the clip's words", async () => /\bwait\b/i.test((await log.textContent()) ?? "") || null, 20_000, 100);
    expect(sockets).toEqual([`${web.origin.replace(/^http/, "ws")}/v1/realtime?intent=transcription`]);
    expect(await page.getByRole("timer", { name: "Time recorded" }).textContent()).toMatch(/^0:0\d$/);

    await page.getByRole("button", { name: "Stop and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 30_000 });
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    const task = await finishedTask(id);
    expect(task.segments?.map((segment) => segment.text).join(" ")).toMatch(/\bwait\b/i);
    // Nothing went the upload's way.
    expect(uploads).toEqual([]);
    web.expectClean();
  }, 90_000);

  test("a session the server ends first (its maximum length): the recording stops there, and its task is the recording's", async () => {
    web.checkpoint();
    const { page } = web;
    const uploads = watchUploads(page);
    await page.goto("/new");
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await until("a caption", async () => /\bwait\b/i.test((await page.getByRole("log", { name: "Live captions" }).textContent()) ?? "") || null, 20_000, 100);
    // The server ends the session at its maximum length, keeps what it heard as a task and names it: the page stops recording.
    await page
      .getByRole("status")
      .getByText(/^The live transcription ended, so the recording stopped after/)
      .waitFor({ timeout: maxSessionSeconds * 1000 + 10_000 });
    await page
      .getByRole("alert")
      .getByText(/maximum length/)
      .waitFor();
    expect(await page.getByRole("timer", { name: "Time recorded" }).count()).toBe(0);
    await page.getByRole("button", { name: "Open the transcription" }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    const task = await finishedTask(Number(new URL(page.url()).pathname.split("/").pop()));
    expect(task.segments?.map((segment) => segment.text).join(" ")).toMatch(/\bwait\b/i);
    expect(uploads).toEqual([]);
    web.expectClean();
  }, 60_000);
});
