/**
 * "Delete account" on the Account page, in a real browser against the started service: a wrong password is refused
 * beside the form; the right one erases the account and signs out to the sign-in page, which says so; an account
 * made through the identity provider (no password) is deleted right after signing in, with the field left empty.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromiumAvailable, chromiumPath, registerThroughForm, sessionHeaders, startBrowserHarness, type BrowserHarness } from "../support/browser.ts";
import { startOidcProvider, type TestIdp } from "../support/oidc-provider.ts";
import { freePort } from "../support/service-process.ts";
import { prerequisite } from "../support/prerequisites.ts";

const haveChromium = prerequisite(`Chromium at ${chromiumPath}`, chromiumAvailable, "apt-get install chromium; npm test installs it");
const password = "correct horse battery";

describe.skipIf(!haveChromium)("deleting the account from the web app", () => {
  let web: BrowserHarness;
  let idp: TestIdp;
  const idpEmail = `social-${crypto.randomUUID()}@example.com`;
  beforeAll(async () => {
    const port = freePort();
    idp = await startOidcProvider({ redirectUri: `http://127.0.0.1:${port}/auth/callback`, signedIn: "sam" });
    idp.addAccount({ sub: "sam", email: idpEmail, email_verified: true, name: "Sam Social" });
    web = await startBrowserHarness({
      port,
      env: () => ({ IDP_ISSUER: idp.issuer, IDP_CLIENT_ID: idp.rs256Client.id, IDP_CLIENT_SECRET: idp.rs256Client.secret, IDP_REDIRECT_URI: idp.redirectUri }),
    });
  }, 60_000);
  afterAll(async () => {
    await web?.close();
    await idp?.close();
  });

  test("with the password: a wrong one is refused, the right one erases the account and signs out with a message", async () => {
    web.checkpoint();
    const { page } = web;
    const email = `gone-${crypto.randomUUID()}@example.com`;
    await registerThroughForm(page, { name: "Dora Deleted", email, password });
    const headers = await sessionHeaders(page);
    await page.goto("/account");
    await page.getByRole("button", { name: "Delete account…" }).click();
    await page.getByLabel("Your password").fill("not my password");
    await page.getByRole("button", { name: "Delete my account and all its data" }).click();
    await page.getByRole("alert").getByText("The password is incorrect.").waitFor();

    await page.getByLabel("Your password").fill(password);
    await page.getByRole("button", { name: "Delete my account and all its data" }).click();
    await page.getByRole("heading", { name: "Sign in" }).waitFor();
    await page.getByText("Your account and all its data have been deleted.").waitFor();
    expect((await fetch(`${web.service.url}/api/session`, { headers })).status).toBe(401);
    const login = await fetch(`${web.service.url}/api/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(401);
    web.expectClean();
  });

  test("without a password (identity provider): deleted just after signing in, the field left empty", async () => {
    web.checkpoint();
    const { page } = web;
    await page.getByRole("button", { name: "Sign in with idp" }).click();
    await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
    await page.goto("/account");
    await page.getByText("Sam Social").waitFor();
    await page.getByRole("button", { name: "Delete account…" }).click();
    await page.getByRole("button", { name: "Delete my account and all its data" }).click();
    await page.getByText("Your account and all its data have been deleted.").waitFor();
    // The identity is free again: signing in through the provider makes a new, empty account.
    await page.getByRole("button", { name: "Sign in with idp" }).click();
    await page.getByRole("heading", { name: "Transcriptions" }).waitFor();
    web.expectClean([new URL(idp.issuer).origin]);
  });
});
