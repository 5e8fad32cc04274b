/**
 * The Account page and the other ways in, in a real browser against the started service: plan, balance and
 * usage; the checkout through the sandbox provider; API keys on a paid plan (created, shown once, copied,
 * revoked); "Sign in with idp" through a real OpenID Connect provider; and the app with the keyboard alone,
 * at 375 px, light and dark. No request leaves the service's origin but the provider's login.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { chromiumAvailable, chromiumPath, startBrowserHarness, type BrowserHarness, registerThroughForm } from "../support/browser.ts";
import { startOidcProvider, type TestIdp } from "../support/oidc-provider.ts";
import { freePort } from "../support/service-process.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");

const password = "correct horse battery";

/** The definition beside a term of the page's lists (Remaining → 30 min). */
const fact = (page: Page, term: string) => page.locator(`dt:text-is("${term}") + dd`).textContent();

describe.skipIf(!haveChromium)("the web app's account pages", () => {
  let web: BrowserHarness;
  let idp: TestIdp;
  beforeAll(async () => {
    const port = freePort();
    idp = await startOidcProvider({ redirectUri: `http://127.0.0.1:${port}/auth/callback`, signedIn: "ada" });
    idp.addAccount({ sub: "ada", email: `ada-${crypto.randomUUID()}@example.com`, email_verified: true, name: "Ada from the provider" });
    web = await startBrowserHarness({
      port,
      env: () => ({
        IDP_ISSUER: idp.issuer,
        IDP_CLIENT_ID: idp.rs256Client.id,
        IDP_CLIENT_SECRET: idp.rs256Client.secret,
        IDP_REDIRECT_URI: idp.redirectUri,
      }),
    });
    await web.context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: web.origin });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await idp?.close();
  });

  test("a Free account: its plan, balance and usage, and API keys said to need a paid plan", async () => {
    web.checkpoint();
    const { page } = web;
    await registerThroughForm(page, { name: "Grace Hopper", email: `free-${crypto.randomUUID()}@example.com`, password });
    await page.getByRole("link", { name: "Account" }).click();
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
    expect(await page.getByRole("region", { name: "Plan", exact: true }).textContent()).toContain("Free");
    expect(await fact(page, "Remaining")).toBe("30 min");
    expect(await fact(page, "Left of this month's allowance")).toBe("30 min");
    expect(await fact(page, "Left of top-ups")).toBe("0 s");
    expect(await page.getByRole("progressbar").getAttribute("value")).toBe("0");
    await page.getByText("API keys need a paid plan").waitFor();
    expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0);
    web.expectClean();
  });

  test("checkout upgrades to Pro; then an API key is created, shown once, copied, used, and revoked", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Upgrade to Pro, monthly" }).click();
    // The sandbox provider's page, served by the API on this origin (PUBLIC_URL).
    await page.getByRole("button", { name: "Pay" }).click();
    await page.getByRole("heading", { name: "Payment complete" }).waitFor();
    await page.goto("/account");
    await page.getByRole("region", { name: "Plan", exact: true }).getByText("Pro", { exact: true }).waitFor();
    expect(await page.getByRole("region", { name: "Plan", exact: true }).textContent()).toContain("billed every month");
    expect(await fact(page, "Remaining")).toBe("20 h 00 min");

    await page.getByLabel("Key name").fill("CI pipeline");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByRole("status").locator("code");
    await shown.waitFor();
    const key = (await shown.textContent()) ?? "";
    expect(key).toMatch(/^sk_/);
    await page.getByRole("button", { name: "Copy key" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate<string>("navigator.clipboard.readText()")).toBe(key);
    await page.getByRole("list", { name: "Your API keys" }).getByText("CI pipeline", { exact: true }).waitFor();
    expect((await fetch(`${web.service.url}/api/tasks`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

    // Shown once: after a reload the key is listed by its prefix, never in full.
    await page.reload();
    await page.getByRole("list", { name: "Your API keys" }).getByText("CI pipeline", { exact: true }).waitFor();
    expect(await page.content()).not.toContain(key);

    await page.getByRole("button", { name: "Revoke CI pipeline" }).click();
    await page.getByRole("button", { name: "Confirm revoking CI pipeline" }).click();
    await page.getByText("No keys yet.").waitFor();
    expect((await fetch(`${web.service.url}/api/tasks`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(401);
    web.expectClean();
  });

  test("Sign in with idp: to the provider and back through /auth/callback, signed in as its user", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("button", { name: "Sign in with idp" }).click();
    await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
    expect(new URL(page.url()).origin).toBe(web.origin);
    await page.goto("/account");
    await page.getByText("Ada from the provider").waitFor();
    // The only other origin the browser reached is the provider's login.
    expect(web.offOrigin.length).toBeGreaterThan(0);
    web.expectClean([new URL(idp.issuer).origin]);
  });

  test("a callback that this tab did not start is refused, and says so", async () => {
    web.checkpoint();
    const { page } = web;
    await page.goto("/auth/callback?code=forged&state=forged-state-0123456789");
    await page.getByRole("alert").getByText("not the one this tab started").waitFor();
    web.expectClean();
  });

  test("with the keyboard alone at 375 px: sign in, open the Account page; focus is visible; nothing scrolls sideways", async () => {
    web.checkpoint();
    const { page } = web;
    await page.setViewportSize({ width: 375, height: 740 });
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    const email = `keys-${crypto.randomUUID()}@example.com`;
    expect(
      (
        await fetch(`${web.service.url}/api/register`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ name: "Kay", email, password, password_confirmation: password }),
        })
      ).status,
    ).toBe(201);

    const focused = () => page.evaluate<string>("document.activeElement?.id || document.activeElement?.textContent || ''");
    for (let i = 0; i < 12 && (await focused()) !== "field-email"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toBe("field-email");
    expect(await page.evaluate<string>("getComputedStyle(document.activeElement).outlineStyle")).not.toBe("none");
    await page.keyboard.type(email);
    await page.keyboard.press("Tab");
    await page.keyboard.type(password);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);

    // A navigation moves focus to the page, which comes after the navigation bar: back up to its Account link.
    for (let i = 0; i < 12 && (await focused()) !== "Account"; i++) await page.keyboard.press("Shift+Tab");
    expect(await focused()).toBe("Account");
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
    await page.getByText("API keys need a paid plan").waitFor();
    expect(await page.evaluate<number>("document.documentElement.scrollWidth")).toBeLessThanOrEqual(375);
    web.expectClean();
  });

  test("light or dark, as the system prefers", async () => {
    const { page } = web;
    const background = () => page.evaluate<string>("getComputedStyle(document.body).backgroundColor");
    await page.emulateMedia({ colorScheme: "dark" });
    expect(await background()).toBe("rgb(21, 23, 27)");
    await page.emulateMedia({ colorScheme: "light" });
    expect(await background()).toBe("rgb(255, 255, 255)");
  });
});
