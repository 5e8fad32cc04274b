/**
 * Recording on the New transcription page in a real browser against the started service, with Chromium's fake
 * microphone playing speech made by espeak-ng: nothing asks for the microphone until Record is pressed; then the
 * timer runs, the level meter hears the speech (and says so in words), Stop uploads the recording through the
 * file upload's flow (sign, parts, complete) as "Recording YYYY-MM-DD HH:MM.webm", and the task finishes. A
 * microphone refused or missing, and a browser without MediaRecorder, are said in words, and nothing is uploaded.
 * Screenshot of a recording under way: test/web/screenshots/recording.png (the README shows it).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page, Response } from "playwright-core";
import { join } from "node:path";
import {
  chromiumAvailable,
  chromiumPath,
  registerThroughForm,
  screenshotsDir,
  startBrowserHarness,
  untilInPage,
  type BrowserHarness,
} from "../support/browser.ts";
import { until } from "../support/eventually.ts";
import { spoken } from "../support/media-fixtures.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");
const haveEspeak = haveChromium && prerequisite("espeak-ng", Bun.which("espeak-ng") !== null, "apt-get install espeak-ng; npm test installs it");

/** The upload endpoints and the storage. */
const uploadTraffic = /\/api\/uploads\/(sign|sign-part|complete|abort)$|\/storage\//;

/**
 * Counts the page's calls to getUserMedia (the browser's permission prompt comes with the first), keeps what the
 * live regions said, and, where asked, stands in for a browser without a microphone or without MediaRecorder. A script run before the app's
 * own (the tests' TypeScript has no DOM, hence a string).
 */
const instrument = (variant: "as-is" | "no-microphone" | "no-media-recorder") => `
  window.microphoneAsked = 0;
  const original = navigator.mediaDevices.getUserMedia.bind(navigator.mediaDevices);
  navigator.mediaDevices.getUserMedia = (constraints) => {
    window.microphoneAsked++;
    return ${variant === "no-microphone" ? `Promise.reject(new DOMException("Requested device not found", "NotFoundError"))` : "original(constraints)"};
  };
  ${variant === "no-media-recorder" ? "delete window.MediaRecorder;" : ""}
  // A browser without AudioWorklet: no live captions, so the recording takes the upload's way tested here (the live
  // transcription's: live-record.e2e.test.ts, live-record-client.e2e.test.ts).
  delete window.AudioWorkletNode;
  // What the live regions said, in order: some are said just before the page moves on to the task.
  window.statusSaid = [];
  new MutationObserver(() => {
    for (const region of document.querySelectorAll("[role=status]")) {
      const text = region.textContent.trim();
      if (text && window.statusSaid.at(-1) !== text) window.statusSaid.push(text);
    }
  }).observe(document, { subtree: true, childList: true, characterData: true });
`;

/** The task as the API gives it, fetched by the page itself: with the app's session cookie (or a token it kept). */
const taskInPage = (page: Page, id: number) =>
  page.evaluate<{ status: string; name: string; file: string; duration: number; segments: { text: string }[] | null }>(`(async () => {
    const saved = JSON.parse(localStorage.getItem("scribe.session") ?? "null");
    const answer = await fetch("/api/tasks/${id}", { headers: saved?.token ? { authorization: "Bearer " + saved.token } : {} });
    return answer.ok ? answer.json() : { status: "HTTP " + answer.status };
  })()`);

async function openNewPage(page: Page): Promise<void> {
  await page.goto("/new");
  await page.getByRole("heading", { name: "New transcription", level: 1 }).waitFor();
  await page.getByRole("heading", { name: "Or record from the microphone" }).waitFor();
}

describe.skipIf(!haveEspeak)("recording on the New transcription page", () => {
  let web: BrowserHarness;
  /** "METHOD path" of every request the harness's page made. */
  const requests: string[] = [];
  const extraContexts: BrowserContext[] = [];

  beforeAll(async () => {
    // Chromium loops the file as its microphone's input: a few seconds of speech.
    const speech = await spoken("Hello. This recording was made in the browser, and it should be transcribed.");
    // A newcomer's settings (the page at 127.0.0.1, no PUBLIC_URL, the spec's request rate). Without
    // `--use-fake-ui-for-media-stream`: that switch accepts every microphone request, even where the permission is
    // denied, so the refusal below could not be shown; the permission is granted instead (a person's "Allow"), per
    // context.
    web = await startBrowserHarness({
      chromiumArgs: ["--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${speech}`],
    });
    await web.context.grantPermissions(["microphone"], { origin: web.origin });
    await web.context.addInitScript(instrument("as-is"));
    web.context.on("request", (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await registerThroughForm(web.page, { name: "Ada Recorder", email: `record-${crypto.randomUUID()}@example.com` });
  }, 60_000);
  afterAll(async () => {
    for (const context of extraContexts) await context.close().catch(() => undefined);
    await web?.close();
  });

  /** Another visit by the same signed-in person, in a context of its own (its own permissions and scripts). */
  async function anotherVisit(variant: Parameters<typeof instrument>[0], permission: "granted" | "denied"): Promise<{ page: Page; requests: string[] }> {
    const context = await web.browser.newContext({ baseURL: web.service.url, storageState: await web.context.storageState() });
    extraContexts.push(context);
    await context.addInitScript(instrument(variant));
    const page = await context.newPage();
    page.setDefaultTimeout(20_000);
    if (permission === "granted") await context.grantPermissions(["microphone"], { origin: web.origin });
    else {
      // As a person's "Block" leaves it: the permission denied for the origin, so getUserMedia fails at once.
      const cdp = await context.newCDPSession(page);
      const { targetInfo } = (await cdp.send("Target.getTargetInfo")) as { targetInfo: { browserContextId?: string } };
      const browserSession = await web.browser.newBrowserCDPSession();
      await browserSession.send("Browser.setPermission", {
        permission: { name: "microphone" },
        setting: "denied",
        origin: web.origin,
        browserContextId: targetInfo.browserContextId,
      });
    }
    const seen: string[] = [];
    context.on("request", (request) => seen.push(`${request.method()} ${new URL(request.url()).pathname}`));
    return { page, requests: seen };
  }

  test("Record, with the keyboard: no microphone asked before; a timer and a level meter; Stop uploads it and the task finishes", async () => {
    web.checkpoint();
    const { page } = web;
    await openNewPage(page);
    const record = page.getByRole("button", { name: "Record", exact: true });
    await record.waitFor();
    expect(await page.evaluate<number>("window.microphoneAsked")).toBe(0);

    requests.length = 0;
    await record.focus();
    await page.keyboard.press("Enter");
    await page.getByRole("status").filter({ hasText: "Recording. Press Stop to finish and transcribe." }).waitFor();
    expect(await page.evaluate<number>("window.microphoneAsked")).toBe(1);
    // Focus moved from Record (gone) to Stop.
    const stop = page.getByRole("button", { name: "Stop and transcribe" });
    await stop.waitFor();
    await untilInPage(page, 'document.activeElement?.textContent === "Stop and transcribe"');

    // The meter hears the speech, and says so in words; the timer reaches 3 seconds.
    const meter = page.getByRole("meter", { name: "Microphone level" });
    await until("the meter hears the speech", async () => ((await meter.getAttribute("aria-valuetext")) ?? "no sound") !== "no sound", 15_000, 100);
    expect(["quiet", "good", "too loud"]).toContain(String(await meter.getAttribute("aria-valuetext")));
    const timer = page.getByRole("timer", { name: "Time recorded" });
    await until("3 s recorded", async () => (await timer.textContent()) === "0:03", 20_000, 50);
    await page.getByRole("region", { name: "Or record from the microphone" }).screenshot({ path: join(screenshotsDir, "recording.png") });
    await page.keyboard.press("Enter");

    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 60_000 });
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    const uploads = requests.filter((request) => uploadTraffic.test(request));
    expect(uploads[0]).toBe("POST /api/uploads/sign");
    expect(uploads).toContain("POST /api/uploads/sign-part");
    expect(uploads.some((request) => request.startsWith("PUT /storage/"))).toBe(true);
    expect(uploads.at(-1)).toBe("POST /api/uploads/complete");

    // The recording, transcribed: polled every 2 s, as a person reloading would.
    const task = await until(
      "the recording's task finished",
      async () => {
        const now = await taskInPage(page, id);
        if (now.status === "failed") throw new Error(`the recording's task failed: ${JSON.stringify(now)}`);
        return now.status === "finished" ? now : null;
      },
      120_000,
      2000,
    );
    expect(task.name).toMatch(/^Recording \d{4}-\d\d-\d\d \d\d:\d\d$/);
    expect(task.file).toBe(`${task.name}.webm`);
    expect(task.duration).toBeGreaterThanOrEqual(3);
    expect(task.duration).toBeLessThanOrEqual(6);
    expect(
      task.segments
        ?.map((segment) => segment.text)
        .join(" ")
        .trim(),
    ).not.toBe("");
    web.expectClean();
  }, 180_000);

  test("a slow upload of a recording: its progress and Cancel (aborted on the server too); the recording kept, and uploaded again", async () => {
    web.checkpoint();
    const { page } = web;
    await openNewPage(page);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    const timer = page.getByRole("timer", { name: "Time recorded" });
    await until("2 s recorded", async () => (await timer.textContent()) === "0:02", 20_000, 50);
    // About 12 KiB sent at 1 KiB/s (Chromium's own throttling, as DevTools does it): Cancel comes long before the end.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 });
    requests.length = 0;
    let aborted: Promise<Response> | undefined;
    try {
      await page.getByRole("button", { name: "Stop and transcribe" }).click();
      await page
        .getByRole("status")
        .getByText(/^Recorded 2 seconds\. Uploading…$/)
        .waitFor();
      await page.getByLabel(/^Uploading “Recording \d{4}-\d\d-\d\d \d\d:\d\d\.webm”$/).waitFor();
      // Focus is on Cancel (the Stop button is gone): the keyboard cancels.
      await page.getByRole("button", { name: "Cancel upload" }).waitFor();
      await untilInPage(page, 'document.activeElement?.textContent === "Cancel upload"');
      aborted = page.waitForResponse((response) => response.url().endsWith("/api/uploads/abort"), { timeout: 30_000 });
      await page.keyboard.press("Enter");
      await page.getByRole("status").getByText("The upload was cancelled, and the server keeps none of it. The recording is still in this page").waitFor();
    } finally {
      // Lifted before the abort is awaited: Chromium's throttle would hold its request behind the cancelled part's bytes.
      await cdp.send("Network.emulateNetworkConditions", { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    }
    expect((await aborted)?.status()).toBe(200);
    expect(requests).not.toContain("POST /api/uploads/complete");
    const again = page.getByRole("button", { name: "Upload the recording again" });
    await untilInPage(page, 'document.activeElement?.textContent === "Upload the recording again"');
    await again.press("Enter");
    await page.waitForURL(/\/tasks\/\d+$/, { timeout: 60_000 });
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    expect((await taskInPage(page, id)).file).toMatch(/^Recording \d{4}-\d\d-\d\d \d\d:\d\d\.webm$/);
    web.expectClean();
  }, 90_000);

  test("the balance's limits: none left is refused before the microphone is asked; 2 s left stops the recording at 2 s", async () => {
    // The balance the page reads (GET /api/user) made small here: a new account's own is 30 minutes.
    const withBalance = async (seconds: number) => {
      const visit = await anotherVisit("as-is", "granted");
      await visit.page.route("**/api/user", async (route) => {
        const answer = await route.fetch();
        const user = (await answer.json()) as { balance: Record<string, number> };
        await route.fulfill({ response: answer, json: { ...user, balance: { ...user.balance, remaining_seconds: seconds } } });
      });
      await openNewPage(visit.page);
      await visit.page.getByRole("button", { name: "Record", exact: true }).click();
      return visit;
    };

    const none = await withBalance(0);
    const refusal = none.page.getByRole("alert").getByText("Your balance has no transcription time left; top up or upgrade your plan to record.");
    await refusal.waitFor();
    await none.page.getByRole("alert").getByRole("link", { name: "Top up or change your plan on the Account page." }).waitFor();
    expect(await none.page.evaluate<number>("window.microphoneAsked")).toBe(0);
    expect(none.requests.filter((request) => uploadTraffic.test(request))).toEqual([]);

    const two = await withBalance(2);
    const signed = two.page.waitForRequest((request) => request.url().endsWith("/api/uploads/sign"), { timeout: 30_000 });
    await two.page.getByText("your balance allows 2 s").waitFor();
    await two.page.waitForURL(/\/tasks\/\d+$/, { timeout: 60_000 });
    expect(await two.page.evaluate<string[]>("window.statusSaid")).toContain("The recording stopped at the 2 s your balance allows. Uploading 2 seconds…");
    // The duration goes with the upload, so that the API refuses on sign what the balance cannot pay.
    expect((await signed).postDataJSON()).toMatchObject({ duration: 2, content_type: "audio/webm" });
  }, 90_000);

  test("a microphone refused: said in words with what to do, and nothing uploaded", async () => {
    const { page, requests: seen } = await anotherVisit("as-is", "denied");
    await openNewPage(page);
    await page.getByRole("button", { name: "Record", exact: true }).click();
    await page.getByRole("alert").getByText("Scribe may not use the microphone. To record, allow it for this site").waitFor();
    expect(await page.evaluate<number>("window.microphoneAsked")).toBe(1);
    // Record stays, to try again once allowed.
    await page.getByRole("button", { name: "Record", exact: true }).waitFor();
    expect(seen.filter((request) => uploadTraffic.test(request))).toEqual([]);
  }, 60_000);

  test("no microphone, and a browser without MediaRecorder: each said in words, and nothing uploaded", async () => {
    const missing = await anotherVisit("no-microphone", "granted");
    await openNewPage(missing.page);
    await missing.page.getByRole("button", { name: "Record", exact: true }).click();
    await missing.page.getByRole("alert").getByText("No microphone was found. Connect one, or switch it on, then press Record again.").waitFor();

    const old = await anotherVisit("no-media-recorder", "granted");
    await openNewPage(old.page);
    const record = old.page.getByRole("button", { name: "Record", exact: true });
    expect(await record.isDisabled()).toBe(true);
    // The reason is the button's description, and on the page.
    expect(await record.getAttribute("aria-describedby")).toBe("record-unavailable");
    await old.page.getByText("This browser cannot record audio.").waitFor();
    expect(await old.page.evaluate<number>("window.microphoneAsked")).toBe(0);
    expect([...missing.requests, ...old.requests].filter((request) => uploadTraffic.test(request))).toEqual([]);
  }, 60_000);
});
