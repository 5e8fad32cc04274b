import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { startOidcProvider, type IdpClient, type TestIdp } from "../support/oidc-provider.ts";
import { claimAbandonedAfterMs, identityClaimStream } from "../../src/accounts/claims.ts";
import { Database } from "bun:sqlite";
import { join } from "node:path";

type TokenBody = { token: string; user: { id: number; name: string; email: string } };
type ErrorBody = { message: string; errors?: Record<string, string[]> };

const appFor = (idp: TestIdp, client: IdpClient) =>
  startTestApp({ ...scriptPace, IDP_ISSUER: idp.issuer, IDP_CLIENT_ID: client.id, IDP_CLIENT_SECRET: client.secret, IDP_REDIRECT_URI: idp.redirectUri });

const unique = (label: string) => `${label}-${crypto.randomUUID().slice(0, 8)}`;

describe("POST /api/auth/social-login against a real OpenID Connect provider", () => {
  let idp: TestIdp;
  let app: TestApp;
  const socialLogin = (code: string, provider = "idp") => app.request("POST", "/api/auth/social-login", { json: { provider, code } });
  const userCount = () => app.adapters.documents.collection("users").countDocuments();
  /** A fresh provider account and one code for it. */
  async function codeFor(account: { email?: string; email_verified?: boolean; name?: string } = {}) {
    const sub = unique("sub");
    idp.addAccount({ sub, ...account });
    return { sub, code: await idp.authorize(sub) };
  }
  async function expectRefused(response: Response, status: number, field?: string) {
    expect(response.status).toBe(status);
    expect(response.headers.get("content-type")).toContain("application/json");
    const body = (await response.json()) as ErrorBody;
    expect(body.message).toBeString();
    if (field) expect(body.errors?.[field]?.[0]).toBeString();
    return body;
  }

  beforeAll(async () => {
    idp = await startOidcProvider();
    app = await appFor(idp, idp.rs256Client);
  });
  afterAll(async () => {
    await app?.close();
    await idp?.close();
  });

  test("the first login creates the account, whose token works; a later login is the same account", async () => {
    const email = `${unique("ada")}@example.com`;
    const { sub, code } = await codeFor({ email, email_verified: true, name: "Ada Lovelace" });
    const before = await userCount();

    const first = await socialLogin(code);
    expect(first.status).toBe(200);
    const body = (await first.json()) as TokenBody;
    expect(body.user).toMatchObject({ name: "Ada Lovelace", email });
    const profile = await app.request("GET", "/api/user", { token: body.token });
    expect(profile.status).toBe(200);
    expect(((await profile.json()) as { id: number }).id).toBe(body.user.id);
    expect(await userCount()).toBe(before + 1);

    const again = await socialLogin(await idp.authorize(sub));
    expect(again.status).toBe(200);
    const second = (await again.json()) as TokenBody;
    expect(second.user.id).toBe(body.user.id);
    expect(second.token).not.toBe(body.token);
    expect(await userCount()).toBe(before + 1);
  });

  test("the web app's callback signs in to a session instead (POST /api/session/social): a cookie, no token, the same account", async () => {
    const email = `${unique("lin")}@example.com`;
    const { sub, code } = await codeFor({ email, email_verified: true, name: "Lin Session" });
    const origin = { origin: app.origin };
    const first = await app.request("POST", "/api/session/social", { json: { provider: "idp", code }, headers: origin });
    expect(first.status).toBe(200);
    const body = (await first.json()) as { user: TokenBody["user"]; token?: string };
    expect(body.user).toMatchObject({ name: "Lin Session", email });
    expect(body.token).toBeUndefined();
    const cookie = first.headers.getSetCookie().find((c) => c.startsWith("scribe_session="))!;
    expect(cookie).toContain("HttpOnly");
    const current = await app.request("GET", "/api/session", { headers: { cookie: cookie.split(";")[0]! } });
    expect(((await current.json()) as { user: { id: number } }).user.id).toBe(body.user.id);
    // The same identity through the token endpoint is the same account; a code from another site's page is refused unspent.
    const again = await socialLogin(await idp.authorize(sub));
    expect(((await again.json()) as TokenBody).user.id).toBe(body.user.id);
    const forged = await app.request("POST", "/api/session/social", {
      json: { provider: "idp", code: await idp.authorize(sub) },
      headers: { origin: "https://evil.example" },
    });
    expect(forged.status).toBe(403);
    expect(forged.headers.getSetCookie()).toEqual([]);
  });

  test("without a name claim the account is named after the email's local part", async () => {
    const email = `${unique("grace")}@example.com`;
    const response = await socialLogin((await codeFor({ email, email_verified: false })).code);
    expect(response.status).toBe(200);
    expect(((await response.json()) as TokenBody).user.name).toBe(email.split("@")[0]!);
  });

  test("a replayed code is a 422 on `code` and creates nothing", async () => {
    const { code } = await codeFor({ email: `${unique("replay")}@example.com`, email_verified: true });
    expect((await socialLogin(code)).status).toBe(200);
    const count = await userCount();
    const body = await expectRefused(await socialLogin(code), 422, "code");
    expect(body.errors?.code).toEqual(["The authorization code is invalid or has expired."]);
    expect(await userCount()).toBe(count);
  });

  test("a garbage code and an expired code are 422 on `code`, with no account left behind", async () => {
    const count = await userCount();
    await expectRefused(await socialLogin("not-a-code-the-provider-ever-issued"), 422, "code");

    idp.setCodeTtlSeconds(1);
    const { code } = await codeFor({ email: `${unique("late")}@example.com`, email_verified: true }).finally(() => idp.setCodeTtlSeconds(60));
    await Bun.sleep(2100);
    await expectRefused(await socialLogin(code), 422, "code");
    expect(await userCount()).toBe(count);
  });

  test("a provider other than `idp` is a 422 on `provider`", async () => {
    await expectRefused(await socialLogin("whatever", "github"), 422, "provider");
  });

  test("a verified email links the identity to the existing password account", async () => {
    const owner = await app.register();
    const count = await userCount();
    const { sub, code } = await codeFor({ email: owner.email.toUpperCase(), email_verified: true, name: "Someone Else" });

    const response = await socialLogin(code);
    expect(response.status).toBe(200);
    expect(((await response.json()) as TokenBody).user.id).toBe(owner.id);
    expect(await userCount()).toBe(count);
    // Linked, not just matched: the next login finds the account by identity, and the password still works.
    expect(((await (await socialLogin(await idp.authorize(sub))).json()) as TokenBody).user.id).toBe(owner.id);
    expect((await app.request("POST", "/api/login", { json: { email: owner.email, password: owner.password } })).status).toBe(200);
  });

  test("an unverified email that belongs to an account is a 422 on `email`, not a takeover", async () => {
    const owner = await app.register();
    const count = await userCount();
    const { sub, code } = await codeFor({ email: owner.email, email_verified: false });

    await expectRefused(await socialLogin(code), 422, "email");
    expect(await userCount()).toBe(count);
    const claim = await app.adapters.eventStore.readStream(identityClaimStream(idp.issuer, sub));
    expect(claim).toEqual([]);
  });

  test("a provider account without an email is a 422 on `email`", async () => {
    const count = await userCount();
    await expectRefused(await socialLogin((await codeFor({ name: "No Mail" })).code), 422, "email");
    expect(await userCount()).toBe(count);
  });

  test("an ID token altered on its way (another subject, same signature) is refused with 502 and creates nothing", async () => {
    const { code } = await codeFor({ email: `${unique("forged")}@example.com`, email_verified: true });
    const count = await userCount();
    const realFetch = globalThis.fetch;
    const forge = async (input: string | URL | Request, init?: RequestInit) => {
      const response = await realFetch(input, init);
      if (!String(input instanceof Request ? input.url : input).endsWith("/token")) return response;
      const tokens = (await response.json()) as { id_token: string };
      const [header, payload, signature] = tokens.id_token.split(".");
      const claims = { ...JSON.parse(Buffer.from(payload!, "base64url").toString()), sub: "someone-else" };
      tokens.id_token = [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
      return Response.json(tokens);
    };
    globalThis.fetch = Object.assign(forge, { preconnect: realFetch.preconnect });
    try {
      const body = await expectRefused(await socialLogin(code), 502);
      expect(body.message).toContain("signature");
    } finally {
      globalThis.fetch = realFetch;
    }
    expect(await userCount()).toBe(count);
  });

  test("an identity claimed by a first login that died before creating its account is taken over, once the claim is old", async () => {
    const { sub, code } = await codeFor({ email: `${unique("retry")}@example.com`, email_verified: true });
    // What a crash between the identity claim and the account leaves: a claim by an id with no account.
    await app.adapters.eventStore.append(
      identityClaimStream(idp.issuer, sub),
      [
        {
          id: crypto.randomUUID(),
          type: "KeyClaimed",
          data: { userId: 999_999 },
          metadata: { correlationId: "crash", causationId: null, userId: 999999, system: null },
        },
      ],
      { expectedRevision: "no_stream" },
    );
    // Just made, it may be a parallel first login still creating its account: that one is waited for.
    const early = await socialLogin(code);
    expect(early.status).toBe(409);
    // A minute later it is a crash's leftover (the claim's time moved back, as if it had been made then).
    const events = new Database(join(app.config.dataDir, "events.sqlite"));
    events.run("UPDATE events SET time = ? WHERE stream_name = ?", [
      new Date(Date.now() - claimAbandonedAfterMs).toISOString(),
      identityClaimStream(idp.issuer, sub),
    ]);
    events.close();
    const response = await socialLogin(await idp.authorize(sub));
    expect(response.status).toBe(200);
    expect(((await response.json()) as TokenBody).user.id).not.toBe(999_999);
  });
});

describe("social login with ES256 ID tokens that carry the profile", () => {
  test("verifies the EC signature and takes email and name from the ID token", async () => {
    const idp = await startOidcProvider({ idTokenCarriesProfile: true });
    const app = await appFor(idp, idp.es256Client);
    try {
      const email = `${unique("es")}@example.com`;
      idp.addAccount({ sub: "es-user", email, email_verified: true, name: "Elliptic" });
      const response = await app.request("POST", "/api/auth/social-login", {
        json: { provider: "idp", code: await idp.authorize("es-user", idp.es256Client) },
      });
      expect(response.status).toBe(200);
      expect(((await response.json()) as TokenBody).user).toMatchObject({ email, name: "Elliptic" });
    } finally {
      await app.close();
      await idp.close();
    }
  });
});

describe("social login when the provider cannot serve us", () => {
  test("a client secret the provider rejects is a 502 that names the OAuth error", async () => {
    const idp = await startOidcProvider();
    const app = await appFor(idp, { id: idp.rs256Client.id, secret: "not-the-secret" });
    try {
      idp.addAccount({ sub: "someone", email: "someone@example.com", email_verified: true });
      const response = await app.request("POST", "/api/auth/social-login", { json: { provider: "idp", code: await idp.authorize("someone") } });
      expect(response.status).toBe(502);
      expect(((await response.json()) as ErrorBody).message).toContain("invalid_client");
    } finally {
      await app.close();
      await idp.close();
    }
  });

  test("an unreachable provider is a 502 with a JSON message, and creates nothing", async () => {
    const idp = await startOidcProvider();
    const { issuer } = idp;
    await idp.close();
    const app = await startTestApp({ ...scriptPace, IDP_ISSUER: issuer, IDP_CLIENT_ID: "scribe", IDP_CLIENT_SECRET: "secret" });
    try {
      const response = await app.request("POST", "/api/auth/social-login", { json: { provider: "idp", code: "any" } });
      expect(response.status).toBe(502);
      expect(((await response.json()) as ErrorBody).message).toContain("identity provider");
      expect(await app.adapters.documents.collection("users").countDocuments()).toBe(0);
    } finally {
      await app.close();
    }
  });
});
