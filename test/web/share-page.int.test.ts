/**
 * The share link (`/share/tasks/{id}`) answers each client in its language: a browser (`Accept: text/html`) gets
 * the web app, whose share page reads the same URL as JSON; `Accept: application/json` gets the JSON; a client
 * that asks for neither (curl, a crawler) the script-free HTML page. A link that shows nothing is 404 in all three.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, json, segment, waitForStatus, type User } from "../support/tasks.ts";

const browser = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };
let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
});
afterAll(() => app.close());

const page = (id: number, headers: Record<string, string> = {}) => app.request("GET", `/share/tasks/${id}`, { headers });

async function sharedTask(user: User): Promise<number> {
  const id = await createTask(app, user, { name: "Stand-up", segments: [segment(0, 1200, "Good morning.")] });
  await waitForStatus(app, user, id, "finished");
  expect((await app.request("GET", `/api/tasks/${id}/share-url`, { token: user.token })).status).toBe(200);
  return id;
}

describe("/share/tasks/{id} by Accept", () => {
  test("a browser gets the web app's page (its CSP, no transcript in it); JSON and plain HTML are as before", async () => {
    const user = await app.register();
    const id = await sharedTask(user);
    const forBrowser = await page(id, browser);
    expect(forBrowser.status).toBe(200);
    expect(forBrowser.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(forBrowser.headers.get("content-security-policy")).toContain("default-src 'self'");
    const shell = await forBrowser.text();
    expect(shell).toContain('<div id="app"></div>');
    expect(shell).not.toContain("Good morning.");

    const asJson = await page(id, { accept: "application/json" });
    expect(asJson.headers.get("content-type")).toContain("application/json");
    expect((await json(asJson)).name).toBe("Stand-up");

    const plain = await page(id);
    expect(plain.headers.get("content-security-policy")).toBe("default-src 'none'; style-src 'unsafe-inline'");
    expect(await plain.text()).toContain("Good morning.");
  });

  test("a link that shows nothing is 404 for everyone; the browser's 404 is the app's page, which says so", async () => {
    const user = await app.register();
    const id = await createTask(app, user, { name: "Private", segments: [segment(0, 1000, "Secret.")] });
    for (const headers of [browser, { accept: "application/json" }, {}]) expect((await page(id, headers)).status).toBe(404);
    const missing = await page(id, { ...browser, "if-none-match": "*" });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("etag")).toBeNull();
    expect(await missing.text()).toContain('<div id="app"></div>');
  });
});
