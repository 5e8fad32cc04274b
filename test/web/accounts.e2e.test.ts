/**
 * The web app's accounts in a real browser (Debian's Chromium through playwright-core) against the started
 * service: register, sign out and in through the forms, field errors from the API next to their fields, a
 * page that needs a session, and `/swagger` rendering offline. No request may leave the service's origin.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumAvailable, chromiumPath, sessionHeaders, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

describe.skipIf(!haveChromium)("the web app's accounts", () => {
  let web: BrowserHarness;
  beforeAll(async () => {
    web = await startBrowserHarness();
  }, 60_000);
  afterAll(async () => {
    await web?.close();
  });

  const email = `ada-${crypto.randomUUID()}@example.com`;

  test("register through the form, land on the task list, sign out, sign in again", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/register");
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("correct horse battery");
    await page.getByLabel("Confirm password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    const signedIn = await sessionHeaders(page);

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(await page.getByText("You have signed out.").isVisible()).toBe(true);
    // The session was ended, not only forgotten: the browser holds no session cookie, and the old one is refused.
    expect((await web.context.cookies()).map((c) => c.name)).not.toContain("scribe_session");
    expect((await fetch(`${web.service.url}/api/session`, { headers: signedIn })).status).toBe(401);

    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
    web.expectClean();
  });

  test("the API's field errors are shown next to their fields, and a wrong password says so", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Sign out" }).click();
    // Signed out only once the app says so: a page loaded before that still holds the session, and leaves /register.
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.goto("/register");
    await page.getByLabel("Name").fill("Ada");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByLabel("Confirm password").fill("other");
    await page.getByRole("button", { name: "Create account" }).click();
    const password = page.getByLabel("Password", { exact: true });
    await page.locator("#field-password-error").waitFor();
    expect(await password.getAttribute("aria-invalid")).toBe("true");
    // The message is tied to its field, so a screen reader reads it with the field.
    expect(await password.getAttribute("aria-describedby")).toBe("field-password-error");
    expect(await page.locator("#field-password-error").textContent()).toContain("8");

    // The confirmation is checked against the password (its message is the password's), then the address.
    await password.fill("long enough now");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.locator("#field-password-error", { hasText: "confirmation does not match" }).waitFor();
    await page.getByLabel("Confirm password").fill("long enough now");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.locator("#field-email-error", { hasText: "already been taken" }).waitFor();
    expect(await page.locator("#field-password-error").count()).toBe(0);

    await page.goto("/login");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").filter({ hasText: "These credentials do not match our records." }).waitFor();
    web.expectClean();
  });

  test("a page that needs a session asks to sign in, then opens; a session the API refuses ends, on a reload or the next click", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/account");
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    expect(new URL(page.url()).search).toBe("?next=%2Faccount");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
    // Once the page has asked for everything it shows (its prices, keys and settings come after the heading): a request
    // still on its way would meet the ended session first and end it there, before the reload this part is about.
    await page.getByRole("list", { name: "Plans for sale" }).waitFor();
    await web.requestsSettled();

    // Ended behind the app's back (signed out elsewhere): its next request gets 401, and the app asks to sign in.
    const ended = await fetch(`${web.service.url}/api/session`, { method: "DELETE", headers: await sessionHeaders(page) });
    expect(ended.status).toBe(204);
    await page.reload();
    await page.getByText("Your session has ended. Please sign in again.").waitFor();
    expect(new URL(page.url()).search).toBe("?next=%2Faccount");

    // Without a reload: the open page's next request gets the 401.
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
    // As above: a request still on its way would meet the ended session before the click.
    await page.getByRole("list", { name: "Plans for sale" }).waitFor();
    await web.requestsSettled();
    expect((await fetch(`${web.service.url}/api/session`, { method: "DELETE", headers: await sessionHeaders(page) })).status).toBe(204);
    await page.getByRole("link", { name: "Transcriptions" }).click();
    await page.getByText("Your session has ended. Please sign in again.").waitFor();
    web.expectClean();
  });

  test("unknown client-side paths draw the app's not-found page; the API's paths keep their JSON 404", async () => {
    web.checkpoint();
    const { page } = web;
    const answer = await page.goto("/no/such/page");
    expect(answer?.status()).toBe(200);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    const api = await page.goto("/api/nope");
    expect(api?.status()).toBe(404);
    expect(await api?.json()).toEqual({ message: "Not found." });
    web.expectClean();
  });

  test("/swagger renders the API reference from our own copy of its script: nothing leaves the origin", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/swagger");
    // Drawn from /swagger/json by the script: the document's title and its operations, grouped by tag.
    await page.getByRole("heading", { name: "Scribe transcription API" }).first().waitFor({ timeout: 20_000 });
    await page.getByText("Health check").first().waitFor();
    expect(await page.getByText("Ask AI").count()).toBe(0);
    web.expectClean();
  }, 30_000);
});
