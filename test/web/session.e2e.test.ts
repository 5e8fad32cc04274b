/**
 * The web app's session as a person meets it, with a newcomer's settings (no PUBLIC_URL, the spec's limits: 10
 * requests a minute per token; the session's own default) and the app opened at 127.0.0.1: 25 page visits in under
 * 2 minutes — the task list, tasks, New transcription, Account, back, reloads, a search, the status filter, a folder,
 * the page size — and no 429 anywhere. The session is an HttpOnly, SameSite=Strict cookie: nothing in localStorage,
 * sessionStorage or `document.cookie` holds it. A page of another origin on the same site (another port of
 * 127.0.0.1, so the browser does send the SameSite=Strict cookie) is refused by the Origin check (403); a page of
 * another site does not even get the cookie sent (401). The figures (calls per visit, visits per minute the default
 * allows) are printed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, registerThroughForm, startBrowserHarness, type BrowserHarness, type BrowserSession } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

/** SESSION_RATE_LIMIT_PER_MINUTE's default (src/accounts/settings.ts). */
const sessionLimit = 600;

type Answer = { at: number; status: number; path: string };

describe.skipIf(!haveChromium)("the web app's session", () => {
  let web: BrowserHarness;
  let session: BrowserSession;
  const names = ["Meeting 1", "Meeting 2", "Meeting 3"];
  const ids: number[] = [];
  /** Every answer the API gave the browser (any page of the context). */
  const answers: Answer[] = [];

  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${web.service.url}${path}`, {
      method,
      headers: { ...session.headers, "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  beforeAll(async () => {
    web = await startBrowserHarness();
    web.context.on("response", (response) => {
      const url = new URL(response.url());
      if (url.origin === web.origin && url.pathname.startsWith("/api/")) answers.push({ at: Date.now(), status: response.status(), path: url.pathname });
    });
    session = await registerThroughForm(web.page, { name: "Pat Clicker", email: `clicks-${crypto.randomUUID()}@example.com` });
    // Supplied transcripts: the tasks are finished at once.
    for (const name of names) {
      const segments = [{ start: 0, end: 4000, text: `${name}: the agenda.` }];
      ids.push((await api<{ id: number }>("POST", "/api/tasks", { disk: "objstore", name, path: `uploads/${name}.mp3`, segments })).id);
    }
    await api("POST", "/api/folders", { name: "Work" });
    await api("PATCH", "/api/tasks/bulk/move", { ids: [ids[2]], folder: "Work" });
  }, 90_000);
  afterAll(async () => {
    await web?.close();
  });

  const heading = (page: Page, name: string) => page.getByRole("heading", { name, level: 1, exact: true }).waitFor();
  const listSays = (page: Page, text: string) => page.locator("main").getByText(text, { exact: true }).waitFor();
  const nav = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true }).click();
  const taskLink = (page: Page, name: string) => page.getByRole("list", { name: "Transcriptions" }).getByRole("link", { name, exact: true }).click();

  test("25 page visits in under 2 minutes with the default limits: no 429, and nothing shows one", async () => {
    web.checkpoint();
    const { page } = web;
    const [first, second, third] = names as [string, string, string];
    const visits: [string, () => Promise<unknown>][] = [
      ["open the task list", async () => (await page.goto("/"), listSays(page, "3 transcriptions."))],
      ["a task", async () => (await taskLink(page, first), heading(page, first))],
      ["back", async () => (await page.goBack(), listSays(page, "3 transcriptions."))],
      ["New transcription", async () => (await nav(page, "New transcription"), heading(page, "New transcription"))],
      ["Account", async () => (await nav(page, "Account"), heading(page, "Account"))],
      ["Transcriptions", async () => (await nav(page, "Transcriptions"), listSays(page, "3 transcriptions."))],
      ["status filter", async () => (await page.getByLabel("Status").selectOption("finished"), listSays(page, "3 transcriptions."))],
      [
        "search",
        async () => {
          await page.getByLabel("Search by name").fill(second);
          await page.getByRole("button", { name: "Search" }).click();
          await listSays(page, "1 transcription.");
        },
      ],
      ["a found task", async () => (await taskLink(page, second), heading(page, second))],
      ["back to the search", async () => (await page.goBack(), listSays(page, "1 transcription."))],
      ["back to the filter", async () => (await page.goBack(), listSays(page, "3 transcriptions."))],
      [
        "a folder",
        async () => {
          await page
            .getByRole("navigation", { name: "Folders" })
            .getByRole("link", { name: /^Work \d+$/ })
            .click();
          await listSays(page, "1 transcription in Work.");
        },
      ],
      ["a task in the folder", async () => (await taskLink(page, third), heading(page, third))],
      ["reload", async () => (await page.reload(), heading(page, third))],
      ["Account", async () => (await nav(page, "Account"), heading(page, "Account"))],
      ["back", async () => (await page.goBack(), heading(page, third))],
      ["open New transcription", async () => (await page.goto("/new"), heading(page, "New transcription"))],
      ["open a task", async () => (await page.goto(`/tasks/${ids[0]}`), heading(page, first))],
      ["Transcriptions", async () => (await nav(page, "Transcriptions"), listSays(page, "3 transcriptions."))],
      ["page size", async () => (await page.getByLabel("Per page").selectOption("10"), listSays(page, "3 transcriptions."))],
      ["a task", async () => (await taskLink(page, first), heading(page, first))],
      ["New transcription", async () => (await nav(page, "New transcription"), heading(page, "New transcription"))],
      ["Account", async () => (await nav(page, "Account"), heading(page, "Account"))],
      ["open the task list", async () => (await page.goto("/"), listSays(page, "3 transcriptions."))],
      ["a task", async () => (await taskLink(page, second), heading(page, second))],
    ];
    expect(visits.length).toBe(25);

    answers.length = 0;
    const started = Date.now();
    const perVisit: number[] = [];
    for (const [label, visit] of visits) {
      const before = answers.length;
      try {
        await visit();
        // The page's calls have all been answered (or a few seconds passed: a stream stays open).
        await page.waitForLoadState("networkidle", { timeout: 3000 }).catch(() => undefined);
      } catch (error) {
        throw new Error(`visit "${label}" failed; the page showed: ${await page.locator("main").textContent()}\n${error}`);
      }
      perVisit.push(answers.length - before);
      expect({
        label,
        limited: answers
          .slice(before)
          .filter((a) => a.status === 429)
          .map((a) => a.path),
      }).toEqual({ label, limited: [] });
    }
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(120_000);
    expect(answers.filter((a) => a.status === 429)).toEqual([]);
    expect(await page.getByText(/Too many requests/).count()).toBe(0);
    // Every call counted against the session's allowance (none went out as a token).
    expect(answers.filter((a) => a.status === 401)).toEqual([]);

    // The figures: the most calls any 60 s held, and what the default allows at the busiest page's count.
    const peakMinute = Math.max(...answers.map((a) => answers.filter((b) => b.at >= a.at && b.at < a.at + 60_000).length));
    const busiest = Math.max(...perVisit);
    const average = answers.length / visits.length;
    console.log(
      `session figures: ${visits.length} page visits in ${(elapsed / 1000).toFixed(1)} s (${((visits.length * 60_000) / elapsed).toFixed(1)} visits a minute), ` +
        `${answers.length} API calls (${average.toFixed(1)} a visit, at most ${busiest}; per visit: ${perVisit.join(" ")}), at most ${peakMinute} in any 60 s; ` +
        `the default SESSION_RATE_LIMIT_PER_MINUTE=${sessionLimit} allows ~${Math.floor(sessionLimit / average)} visits a minute at this average ` +
        `(${Math.floor(sessionLimit / busiest)} of the busiest kind), against ~${Math.floor(10 / average)} on a token's 10 a minute`,
    );
    web.expectClean();
  }, 150_000);

  test("no token where script can read it: storage is empty of it, and document.cookie does not show the session cookie", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/");
    await listSays(page, "3 transcriptions.");
    const secret = session.headers.cookie!.slice("scribe_session=".length);
    expect(secret).toMatch(/^scs_/);
    const stores = String(await page.evaluate("JSON.stringify({ local: { ...localStorage }, session: { ...sessionStorage } })"));
    expect(stores).not.toContain(secret);
    expect(stores).not.toMatch(/scs_|scr_|token/i);
    const readable = String(await page.evaluate("document.cookie"));
    expect(readable).not.toContain("scribe_session");
    expect(readable).not.toContain(secret);
    expect(readable).toBe("scribe_signed_in=1");

    const cookie = (await web.context.cookies(web.origin)).find((c) => c.name === "scribe_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/", secure: false });
    // Persistent, as the token in localStorage was: a restarted browser stays signed in (for SESSION_DAYS).
    expect(cookie.expires * 1000 - Date.now()).toBeGreaterThan(29 * 86_400_000);
    web.expectClean();
  });

  test("another origin's page is refused: same site (another port) by the Origin check, another site gets no cookie sent", async () => {
    web.checkpoint();
    // A stand-in for another site's page, on loopback too (a page the browser thinks public may not call loopback at all).
    const elsewhere = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () => new Response("<!doctype html><title>elsewhere</title><p>elsewhere</p>", { headers: { "content-type": "text/html" } }),
    });
    const page = await web.context.newPage();
    // What a form post or a no-cors fetch can send from any page: a POST with a simple content type.
    const attack = `fetch(${JSON.stringify(`${web.origin}/api/folders`)}, { method: "POST", credentials: "include", mode: "no-cors", headers: { "content-type": "text/plain" }, body: '{"name":"Forged"}' }).then(() => "sent", (e) => String(e))`;
    const forged = async (attacker: string) => {
      await page.goto(`${attacker}/`);
      const answered = page.waitForResponse((response) => response.url() === `${web.origin}/api/folders` && response.request().method() === "POST");
      expect(await page.evaluate(attack)).toBe("sent");
      return (await answered).status();
    };
    try {
      // 127.0.0.1 on another port: same site, so the SameSite=Strict cookie goes along (the API answers 403, which
      // it gives only to a request with a session cookie), and the Origin check refuses it.
      expect(await forged(`http://127.0.0.1:${elsewhere.port}`)).toBe(403);
      // localhost is another site than 127.0.0.1: the browser does not send the cookie at all, so no one is signed in.
      expect(await forged(`http://localhost:${elsewhere.port}`)).toBe(401);
    } finally {
      await page.close();
      elsewhere.stop(true);
    }
    expect(JSON.stringify(await api("GET", "/api/folders"))).not.toContain("Forged");
    web.checkpoint();
  });
});
