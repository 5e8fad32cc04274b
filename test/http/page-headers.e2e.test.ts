/**
 * The pages' headers as a real server sends them (a static page could be served by Bun past the app's hooks), and
 * the API reference working in Chromium under its Content-Security-Policy: it draws the document and sends a "Test
 * request" with no violation logged and nothing loaded from elsewhere.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumAvailable, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";

let harness: BrowserHarness;
beforeAll(async () => {
  harness = await startBrowserHarness();
}, 60_000);
afterAll(() => harness?.close());

describe.skipIf(!chromiumAvailable)("the pages of a running service", () => {
  test("every page over real HTTP has its policy, nosniff, a Referrer-Policy and no framing", async () => {
    for (const path of ["/", "/swagger", "/tasks/1"]) {
      const response = await fetch(`${harness.service.url}${path}`, { headers: { accept: "text/html" } });
      await response.body?.cancel();
      expect({
        path,
        status: response.status,
        policy: Boolean(response.headers.get("content-security-policy")?.includes("frame-ancestors 'none'")),
        nosniff: response.headers.get("x-content-type-options"),
        referrer: response.headers.get("referrer-policy"),
        frames: response.headers.get("x-frame-options"),
      }).toEqual({ path, status: 200, policy: true, nosniff: "nosniff", referrer: "same-origin", frames: "DENY" });
    }
  });

  test("the API reference draws and sends a test request under its policy, in Chromium", async () => {
    const { page } = harness;
    harness.checkpoint();
    const violations: string[] = [];
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
    });
    // At the address the document names as its server (PUBLIC_URL): "Test request" calls that one.
    await page.goto(`${harness.publicUrl}/swagger`);
    await page.getByText("Scribe transcription API").first().waitFor();
    await page.getByText("Health check").first().click();
    await page
      .getByRole("button", { name: /test request/i })
      .first()
      .click();
    const answered = page.waitForResponse((response) => new URL(response.url()).pathname === "/api/health");
    await page.getByRole("button", { name: /send/i }).first().click();
    expect((await answered).status()).toBe(200);
    expect(violations).toEqual([]);
    harness.expectClean([new URL(harness.publicUrl).origin]);
  }, 60_000);
});
