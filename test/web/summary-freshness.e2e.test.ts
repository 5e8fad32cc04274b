/**
 * Summaries follow edits, in a real browser against the started service: after the transcript is edited, the
 * transcript page says the summary and mind map are out of date, with a Refresh button that makes them again at once;
 * left alone, the page shows the summary the service makes once the edits have settled. No request leaves the origin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumAvailable, chromiumPath, startBrowserHarness, type BrowserHarness, registerThroughForm } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";
import { until } from "../support/eventually.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

/** Long enough to open the page and press Refresh before the service refreshes by itself, short enough to wait for. */
const settleSeconds = 8;

const garden = [
  { start: 0, end: 4000, text: "The garden needs water every morning in summer." },
  { start: 4000, end: 8000, text: "Tomatoes in the garden want more water than herbs." },
  { start: 8000, end: 12000, text: "Next week we plant the garden beans." },
];
const orchard = "Bees visit the orchard.\nThe orchard bees make honey.\nHoney from the orchard sells well.";

describe.skipIf(!haveChromium)("summaries follow edits on the transcript page", () => {
  let web: BrowserHarness;
  let session: Record<string, string>;
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${web.service.url}${path}`, { ...init, headers: { ...session, "content-type": "application/json", ...init.headers } });

  /** A finished task (its transcript supplied) whose transcript was then edited: its summary is out of date. */
  async function editedTask(name: string): Promise<number> {
    const created = await api("/api/tasks", {
      method: "POST",
      body: JSON.stringify({ disk: "objstore", path: "uploads/meeting.mp3", name, segments: garden }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    await until("the task to finish", async () => ((await (await api(`/api/tasks/${id}`)).json()) as { status: string }).status === "finished", 10_000);
    const edited = await api(`/api/tasks/${id}`, { method: "PATCH", body: JSON.stringify({ text: orchard }) });
    expect(edited.status).toBe(200);
    return id;
  }

  beforeAll(async () => {
    web = await startBrowserHarness({ env: () => ({ SUMMARY_REFRESH_AFTER_EDIT_SECONDS: String(settleSeconds) }) });
    session = (await registerThroughForm(web.page, { email: `summaries-${crypto.randomUUID()}@example.com` })).headers;
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  test("an edited task's summary is marked out of date; Refresh summary makes it again from the edited text", async () => {
    const id = await editedTask("Garden");
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${id}`);
    const summary = page.getByRole("region", { name: "Summary" });
    await summary.waitFor();
    const notice = page.getByText("Out of date:");
    await notice.waitFor();
    expect(await summary.textContent()).toContain("garden");
    await page.getByRole("button", { name: "Refresh summary" }).click();
    await notice.waitFor({ state: "detached", timeout: 5000 });
    expect(await summary.textContent()).toContain("orchard");
    expect((await page.getByRole("region", { name: "Mind map" }).textContent())?.toLowerCase()).toContain("orchard");
    web.expectClean();
  }, 30_000);

  test("left open, the page shows the summary the service makes once the edits have settled", async () => {
    const id = await editedTask("Orchard");
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${id}`);
    const notice = page.getByText("Out of date:");
    await notice.waitFor();
    // The service's own refresh, SUMMARY_REFRESH_AFTER_EDIT_SECONDS after the edit, read by the page within seconds.
    await notice.waitFor({ state: "detached", timeout: (settleSeconds + 10) * 1000 });
    expect(await page.getByRole("region", { name: "Summary" }).textContent()).toContain("orchard");
    web.expectClean();
  }, 40_000);
});

describe.skipIf(!haveChromium)("a summary that could not be made, on the transcript page", () => {
  let web: BrowserHarness;
  let session: Record<string, string>;
  let standIn: ReturnType<typeof Bun.serve> | null = null;
  /** Whether the stand-in chat endpoint refuses (400, which the summariser does not retry). */
  let refusing = true;

  beforeAll(async () => {
    standIn = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        if (refusing) return Response.json({ error: { message: "the model is overloaded" } }, { status: 400 });
        const { messages } = (await req.json()) as { messages: { content: string }[] };
        const lastLine = messages.at(-1)?.content.split("\n").at(-1) ?? "";
        return Response.json({ choices: [{ index: 0, message: { role: "assistant", content: `# Notes\n## Said\n- ${lastLine}` }, finish_reason: "stop" }] });
      },
    });
    const url = `http://127.0.0.1:${standIn.port}/v1`;
    web = await startBrowserHarness({ env: () => ({ SUMMARY_OPENAI_URL: url, SUMMARY_OPENAI_KEY: "sk-test" }) });
    session = (await registerThroughForm(web.page, { email: `summary-failure-${crypto.randomUUID()}@example.com` })).headers;
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    standIn?.stop(true);
  });

  test("the reason is shown with Try again, which makes them once the summariser works again", async () => {
    const api = (path: string, init: RequestInit = {}) =>
      fetch(`${web.service.url}${path}`, { ...init, headers: { ...session, "content-type": "application/json", ...init.headers } });
    const created = await api("/api/tasks", {
      method: "POST",
      body: JSON.stringify({ disk: "objstore", path: "uploads/talk.mp3", name: "Talk", segments: garden }),
    });
    const { id } = (await created.json()) as { id: number };
    await until("the task to finish", async () => ((await (await api(`/api/tasks/${id}`)).json()) as { status: string }).status === "finished", 10_000);
    web.checkpoint();
    const { page } = web;
    await page.goto(`/tasks/${id}`);
    const failure = page.getByRole("alert").filter({ hasText: "could not be made" });
    await failure.waitFor();
    expect(await failure.textContent()).toContain("the model is overloaded");
    refusing = false;
    await page.getByRole("button", { name: "Try again" }).click();
    await failure.waitFor({ state: "detached", timeout: 5000 });
    expect(await page.getByRole("region", { name: "Mind map" }).textContent()).toContain("garden beans");
    web.expectClean();
  }, 30_000);
});
