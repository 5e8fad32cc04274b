import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { webcrypto } from "node:crypto";

/** An end user known to the test provider; `sub` doubles as the login_hint that picks them. */
export type IdpAccount = { sub: string; email?: string; email_verified?: boolean; name?: string };
export type IdpClient = { id: string; secret: string };

export type TestIdp = {
  issuer: string;
  redirectUri: string;
  /** Signs ID tokens with RS256 (the OIDC default). */
  rs256Client: IdpClient;
  /** Signs ID tokens with ES256. */
  es256Client: IdpClient;
  addAccount(account: IdpAccount): void;
  /** Lifetime of the codes issued from now on. */
  setCodeTtlSeconds(seconds: number): void;
  /** Runs the browser's part of the authorization-code flow for `sub` and returns the code. */
  authorize(sub: string, client?: IdpClient): Promise<string>;
  close(): Promise<void>;
};

/** The slice of oidc-provider's API this helper uses (the package ships no types). */
type Grant = { addOIDCScope(scope: string): void; save(): Promise<string> };
type Provider = {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ params: Record<string, unknown> }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: object): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => Grant;
};
type ProviderConstructor = new (issuer: string, configuration: object) => Provider;

async function signingKey(algorithm: webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams, kid: string) {
  const pair = (await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"])) as CryptoKeyPair;
  return { ...(await crypto.subtle.exportKey("jwk", pair.privateKey)), kid };
}

/**
 * A real OpenID Connect provider (the `oidc-provider` package, in this process) on a loopback port.
 * Its login and consent screens are replaced by one route that completes the interaction for the
 * account named in `login_hint`, so a test drives the browser's redirects with plain fetch.
 */
export async function startOidcProvider(
  options: {
    idTokenCarriesProfile?: boolean;
    /** The client's registered redirect URI (default http://localhost:3000/auth/callback): a browser test's service's. */
    redirectUri?: string;
    /** Who signs in when the authorization request names no login_hint: the user already signed in at the provider. */
    signedIn?: string;
  } = {},
): Promise<TestIdp> {
  // A variable specifier keeps tsc from demanding the type declarations the package does not ship.
  const specifier = "oidc-provider";
  const Provider = ((await import(specifier)) as { default: ProviderConstructor }).default;
  const server = createServer();
  // Tracked so close() can end keep-alive connections instead of waiting for them to time out.
  const sockets = new Set<Socket>();
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUri = options.redirectUri ?? "http://localhost:3000/auth/callback";
  const accounts = new Map<string, IdpAccount>();
  let codeTtl = 60;
  const rs256Client = { id: "scribe", secret: "scribe-secret" };
  const es256Client = { id: "scribe-es256", secret: "scribe-es256-secret" };
  const client = ({ id, secret }: IdpClient, alg: string) => ({
    client_id: id,
    client_secret: secret,
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code"],
    response_types: ["code"],
    id_token_signed_response_alg: alg,
  });

  const provider = new Provider(issuer, {
    clients: [client(rs256Client, "RS256"), client(es256Client, "ES256")],
    jwks: {
      keys: [
        await signingKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, "rsa-1"),
        await signingKey({ name: "ECDSA", namedCurve: "P-256" }, "ec-1"),
      ],
    },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    // By default (true) the code flow's ID token holds only `sub` and the profile comes from userinfo.
    conformIdTokenClaims: !options.idTokenCarriesProfile,
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      return account && { accountId: sub, claims: async () => ({ ...account }) };
    },
    cookies: { keys: ["test-cookie-signing-key"] },
    features: { devInteractions: { enabled: false } },
    ttl: { AuthorizationCode: () => codeTtl, AccessToken: 600, IdToken: 600, Interaction: 600, Session: 600, Grant: 600 },
  });

  const handle = provider.callback();
  server.on("request", async (req: IncomingMessage, res: ServerResponse) => {
    if (!req.url?.startsWith("/interaction/")) return handle(req, res);
    try {
      const { params } = await provider.interactionDetails(req, res);
      const accountId = String(params.login_hint ?? options.signedIn);
      const grant = new provider.Grant({ accountId, clientId: String(params.client_id) });
      grant.addOIDCScope(String(params.scope));
      await provider.interactionFinished(req, res, { login: { accountId }, consent: { grantId: await grant.save() } });
    } catch (error) {
      res.statusCode = 500;
      res.end(String(error));
    }
  });

  async function authorize(sub: string, { id } = rs256Client): Promise<string> {
    const query = new URLSearchParams({
      client_id: id,
      response_type: "code",
      scope: "openid email profile",
      redirect_uri: redirectUri,
      login_hint: sub,
      state: crypto.randomUUID(),
    });
    let url = `${issuer}/auth?${query}`;
    const cookies = new Map<string, string>();
    // The browser's part: follow redirects by hand, keeping the provider's session cookies, until it sends us back.
    for (let hop = 0; hop < 10; hop++) {
      const response = await fetch(url, { redirect: "manual", headers: { cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join("; ") } });
      for (const cookie of response.headers.getSetCookie()) {
        const [pair = ""] = cookie.split(";");
        const eq = pair.indexOf("=");
        cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
      }
      const location = response.headers.get("location");
      if (!location) throw new Error(`authorization stopped at ${url}: ${response.status} ${await response.text()}`);
      url = new URL(location, url).toString();
      if (url.startsWith(redirectUri)) {
        const code = new URL(url).searchParams.get("code");
        if (!code) throw new Error(`no code in ${url}`);
        return code;
      }
    }
    throw new Error("too many redirects");
  }

  return {
    issuer,
    redirectUri,
    rs256Client,
    es256Client,
    addAccount: (account) => accounts.set(account.sub, account),
    setCodeTtlSeconds: (seconds) => (codeTtl = seconds),
    authorize,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}
