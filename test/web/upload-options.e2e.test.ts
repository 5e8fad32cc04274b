/**
 * The upload form's Options (issue 30, items 3 and 6) in a real browser against the started service, with a
 * newcomer's settings (PocketSphinx alone): a small file uploaded with a vocabulary, which its task records; an
 * over-long vocabulary refused in the form before any upload request; the API's 422 on completion said beside the
 * field; the vocabulary on the task's page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";
import { chromiumAvailable, chromiumPath, registerThroughForm, sessionHeaders, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

/** The upload endpoints and the storage: none may be called for an upload the form refuses. */
const uploadTraffic = /\/api\/uploads\/(sign|sign-part|complete|abort)$|\/storage\//;

/** Half a second of silence as a WAV file (16 kHz, 16-bit mono): small, and a format the API accepts. */
function silentWav(): Buffer {
  const samples = 8000;
  const wav = Buffer.alloc(44 + samples * 2);
  wav.write("RIFF", 0);
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write("WAVEfmt ", 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(16_000, 24);
  wav.writeUInt32LE(32_000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write("data", 36);
  wav.writeUInt32LE(samples * 2, 40);
  return wav;
}

const region = (page: Page) => page.getByRole("region", { name: "Upload a file" });

/** The New transcription page with a file chosen and the Options disclosure open. */
async function chooseFileWithOptions(page: Page, name: string): Promise<void> {
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "New transcription" }).click();
  await page.getByText("up to 2 GiB").waitFor();
  await page.getByLabel("Audio or video file").setInputFiles({ name, mimeType: "audio/wav", buffer: silentWav() });
  await page.getByText(new RegExp(`^${name.replace(".", "\\.")} · `)).waitFor();
  // Open unless it is already: the page stays as the last test left it, and a refused vocabulary opens it by itself.
  if (!(await region(page).getByLabel("Vocabulary").isVisible())) await region(page).getByText("Options: engine, language, vocabulary").click();
  await region(page).getByLabel("Vocabulary").waitFor();
}

describe.skipIf(!haveChromium)("the upload form's engine, language and vocabulary", () => {
  let web: BrowserHarness;
  /** "METHOD path" of every request the page made, since the test's start. */
  const requests: string[] = [];
  const apiGet = async (path: string) => fetch(`${web.service.url}${path}`, { headers: await sessionHeaders(web.page) });

  beforeAll(async () => {
    web = await startBrowserHarness();
    web.context.on("request", (request) => requests.push(`${request.method()} ${new URL(request.url()).pathname}`));
    await registerThroughForm(web.page, { name: "Ada Vocabulary", email: `vocabulary-${crypto.randomUUID()}@example.com` });
  }, 60_000);
  afterAll(() => web?.close());

  test("a small file uploaded with a vocabulary: its task records the entries, and its page shows them", async () => {
    web.checkpoint();
    const { page } = web;
    await chooseFileWithOptions(page, "standup.wav");
    const options = region(page);
    // PocketSphinx alone: no engine to choose, and English the only language, shown but not chosen.
    expect(await options.getByLabel("Engine").count()).toBe(0);
    const language = options.getByLabel("Language");
    expect(await language.isDisabled()).toBe(true);
    await options.getByText("PocketSphinx recognises English only.").waitFor();

    await options.getByLabel("Vocabulary").fill("Zorbalind\n  Quexley contract , Ada Lovelace\nzorbalind\n\n");
    await options.getByText("3 of 100.").waitFor();
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/);

    const id = Number(new URL(page.url()).pathname.split("/").pop());
    const task = (await (await apiGet(`/api/tasks/${id}`)).json()) as { engine: unknown; language: unknown; vocabulary: unknown };
    expect(task).toMatchObject({ engine: null, language: null, vocabulary: ["Zorbalind", "Quexley contract", "Ada Lovelace"] });
    await page.locator(".task-recognition").getByText("Zorbalind, Quexley contract, Ada Lovelace").waitFor();
    web.expectClean();
  });

  test("over 100 entries, or one over 100 characters, is refused in the form: nothing is sent", async () => {
    web.checkpoint();
    const { page } = web;
    await chooseFileWithOptions(page, "long list.wav");
    requests.length = 0;
    const vocabulary = region(page).getByLabel("Vocabulary");
    await vocabulary.fill(Array.from({ length: 101 }, (_, i) => `term ${i}`).join("\n"));
    await page.getByText("The vocabulary has 101 entries; at most 100 can be given.", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    expect(await vocabulary.getAttribute("aria-invalid")).toBe("true");
    expect(await page.evaluate<string>("document.activeElement?.id ?? ''")).toBe("upload-vocabulary");

    await vocabulary.fill(`Quexley, ${"x".repeat(101)}`);
    await page.getByText("is 101 characters long; each word or phrase can be at most 100 characters.", { exact: false }).waitFor();
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    await Bun.sleep(300); // time for a request that must not come
    expect(requests.filter((request) => uploadTraffic.test(request))).toEqual([]);
    expect(new URL(page.url()).pathname).toBe("/new");
    web.expectClean();
  });

  test("the API's 422 on completion is said, beside the vocabulary, and the stored file can be completed again", async () => {
    web.checkpoint();
    const { page } = web;
    await chooseFileWithOptions(page, "refused.wav");
    const message = "The vocabulary.0 field must not contain control characters.";
    // Once: the service itself never refuses what the form sends, so the test stands in for one that would.
    await page.route("**/api/uploads/complete", (route) => route.fulfill({ status: 422, json: { message, errors: { "vocabulary.0": [message] } } }), {
      times: 1,
    });
    await region(page).getByLabel("Vocabulary").fill("Zorbalind");
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    await region(page).getByRole("status").getByText(message).waitFor();
    const vocabulary = region(page).getByLabel("Vocabulary");
    expect(await vocabulary.getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator("#upload-vocabulary-error").textContent()).toBe(message);

    await page.getByRole("button", { name: "Create the transcription again" }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    expect(((await (await apiGet(`/api/tasks/${id}`)).json()) as { vocabulary: string[] }).vocabulary).toEqual(["Zorbalind"]);
    web.expectClean();
  });
});

describe.skipIf(!haveChromium)("the Engine and Language choices where the service offers whisper too", () => {
  let web: BrowserHarness;
  const apiGet = async (path: string) => fetch(`${web.service.url}${path}`, { headers: await sessionHeaders(web.page) });
  const choiceOfTask = async (page: Page) => {
    const id = Number(new URL(page.url()).pathname.split("/").pop());
    const task = (await (await apiGet(`/api/tasks/${id}`)).json()) as { engine: unknown; language: unknown; vocabulary: unknown };
    return { engine: task.engine, language: task.language, vocabulary: task.vocabulary };
  };

  beforeAll(async () => {
    // Whisper is offered beside PocketSphinx once WHISPER_MODEL names a model that is there: a tiny generated one.
    const model = writeTinyWhisperModel(join(mkdtempSync(join(tmpdir(), "scribe-upload-options-")), "ggml-tiny.bin"));
    web = await startBrowserHarness({ env: () => ({ WHISPER_MODEL: model }) });
    await registerThroughForm(web.page, { name: "Ada Engines", email: `engines-${crypto.randomUUID()}@example.com` });
  }, 60_000);
  afterAll(() => web?.close());

  test("whisper chosen in the upload form and in the link form, with German: both tasks record them", async () => {
    web.checkpoint();
    const { page } = web;
    await chooseFileWithOptions(page, "interview.wav");
    const options = region(page);
    const language = options.getByLabel("Language");
    expect(await language.isDisabled()).toBe(true); // PocketSphinx, the default: English only
    await options.getByLabel("Engine").selectOption({ label: "Whisper" });
    expect(await language.isDisabled()).toBe(false);
    expect(await language.inputValue()).toBe("auto");
    await language.selectOption({ label: "German" });
    await page.getByRole("button", { name: "Upload and transcribe" }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    expect(await choiceOfTask(page)).toEqual({ engine: "whisper", language: "de", vocabulary: [] });
    await page.locator(".task-recognition").getByText("Whisper").waitFor();
    await page.locator(".task-recognition").getByText("German").waitFor();

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "New transcription" }).click();
    const form = page.getByRole("form", { name: "Or transcribe from a link" });
    await form.getByLabel("Link", { exact: true }).fill("https://media.example.com/talk.mp3");
    await form.getByText("Options: engine, language, vocabulary").click();
    await form.getByLabel("Engine").selectOption({ label: "Whisper" });
    await form.getByLabel("Language").selectOption({ label: "German" });
    await form.getByLabel("Vocabulary").fill("Zorbalind, Quexley");
    await form.getByRole("button", { name: "Transcribe from the link" }).click();
    await page.waitForURL(/\/tasks\/\d+$/);
    expect(await choiceOfTask(page)).toEqual({ engine: "whisper", language: "de", vocabulary: ["Zorbalind", "Quexley"] });
    web.expectClean();
  });
});
