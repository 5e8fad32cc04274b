import type { webcrypto } from "node:crypto";
import { DomainError, ValidationFailedError } from "../core/errors.ts";

export type OidcSettings = { issuer: string; clientId: string; clientSecret: string; redirectUri: string };

/** Who the provider says signed in: from the verified ID token, topped up from userinfo when the token is thin. */
export type OidcClaims = { sub: string; email: string | null; email_verified: boolean; name: string | null };

/**
 * The provider is down or answered outside the protocol. That is not the caller's input, so it is a
 * 502 (gateway) rather than a 4xx the client would read as "your code was bad".
 */
export class IdentityProviderError extends DomainError {
  constructor(detail?: string) {
    super(502, detail ? `The identity provider failed: ${detail}.` : "The identity provider could not be reached. Please try again later.");
  }
}

const invalidCode = () => new ValidationFailedError({ code: ["The authorization code is invalid or has expired."] });

type Discovery = {
  issuer: string;
  token_endpoint: string;
  jwks_uri: string;
  authorization_endpoint?: string;
  userinfo_endpoint?: string;
  token_endpoint_auth_methods_supported?: string[];
};
type Jwk = webcrypto.JsonWebKey & { kid?: string; use?: string };
type Json = Record<string, unknown>;

/** Clocks of two machines disagree a little; a minute is what most OIDC libraries allow. */
const clockSkewSeconds = 60;
const requestTimeoutMs = 10_000;

type Scheme = {
  alg: string;
  kty: "RSA" | "EC";
  key: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams;
  verify: webcrypto.Algorithm | webcrypto.RsaPssParams | webcrypto.EcdsaParams;
};

/** Signature schemes an ID token may use (RFC 7518 3.3-3.5); `none` and HMAC are refused. */
function scheme(alg: string): Scheme | null {
  const match = /^(RS|PS|ES)(256|384|512)$/.exec(alg);
  const family = match?.[1];
  const bits = match?.[2];
  if (family === undefined || bits === undefined) return null;
  const hash = `SHA-${bits}`;
  if (family === "RS") return { alg, kty: "RSA", key: { name: "RSASSA-PKCS1-v1_5", hash }, verify: { name: "RSASSA-PKCS1-v1_5" } };
  if (family === "PS") return { alg, kty: "RSA", key: { name: "RSA-PSS", hash }, verify: { name: "RSA-PSS", saltLength: Number(bits) / 8 } };
  const namedCurve = bits === "256" ? "P-256" : bits === "384" ? "P-384" : "P-521";
  return { alg, kty: "EC", key: { name: "ECDSA", namedCurve }, verify: { name: "ECDSA", hash } };
}

const base64url = (part: string) => Buffer.from(part, "base64url");
const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value);
/** RFC 6749 2.3.1: the id and secret are form-encoded before they go into Basic. */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");

function decodeSegment(part: string | undefined): Json {
  try {
    const value: unknown = JSON.parse(base64url(part ?? "").toString("utf8"));
    if (isObject(value)) return value;
  } catch {}
  throw new IdentityProviderError("its ID token is not a well-formed JWT");
}

/** OpenID Connect authorization-code login against one configured issuer (Core 1.0, section 3.1). */
export class OidcClient {
  private discovery: Promise<Discovery> | null = null;
  private jwks: Promise<Jwk[]> | null = null;

  constructor(
    private readonly settings: OidcSettings,
    private readonly now: () => number = () => Date.now(),
  ) {}

  get issuer(): string {
    return this.settings.issuer;
  }

  /**
   * Where a browser starts the login (Core 3.1.2.1): the provider's authorization endpoint with our client, the
   * redirect URI the code comes back to, and the caller's `state`, which the page that receives the code checks.
   */
  async authorizationUrl(state: string, loginHint?: string): Promise<string> {
    const { authorization_endpoint } = await this.discover();
    if (!authorization_endpoint) throw new IdentityProviderError("its discovery document names no authorization endpoint");
    const url = new URL(authorization_endpoint);
    const { clientId, redirectUri } = this.settings;
    const query = { response_type: "code", client_id: clientId, redirect_uri: redirectUri, scope: "openid email profile", state };
    for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
    if (loginHint) url.searchParams.set("login_hint", loginHint);
    return url.toString();
  }

  /** Redeems the code once and returns the verified claims; a code the provider refuses is a 422 on `code`. */
  async exchange(code: string): Promise<OidcClaims> {
    const discovery = await this.discover();
    const tokens = await this.redeem(discovery, code);
    if (typeof tokens.id_token !== "string") throw new ValidationFailedError({ code: ["The authorization code was not issued for the `openid` scope."] });
    const claims = await this.verifyIdToken(discovery, tokens.id_token);
    const { sub } = claims;
    let profile: Json = claims;
    // Providers may keep the ID token minimal for the code flow and hand email and name out at userinfo.
    if (typeof claims.email !== "string" && discovery.userinfo_endpoint && typeof tokens.access_token === "string") {
      const userinfo = await this.request(discovery.userinfo_endpoint, {
        headers: { authorization: `Bearer ${tokens.access_token}`, accept: "application/json" },
      });
      // Core 5.3.2: a userinfo answer about someone else must not be mixed into this login.
      if (userinfo.status !== 200 || userinfo.body.sub !== sub) throw new IdentityProviderError("its userinfo answer does not match the ID token");
      profile = { email: userinfo.body.email, email_verified: userinfo.body.email_verified, name: claims.name ?? userinfo.body.name };
    }
    return {
      sub,
      email: typeof profile.email === "string" && profile.email !== "" ? profile.email : null,
      // Some providers send the flag as a string.
      email_verified: profile.email_verified === true || profile.email_verified === "true",
      name: typeof profile.name === "string" && profile.name.trim() !== "" ? profile.name.trim() : null,
    };
  }

  private async request(url: string, init: RequestInit = {}): Promise<{ status: number; body: Json }> {
    let response: Response;
    try {
      // No redirects: a token POST must not be replayed elsewhere, and every URL here comes from config or discovery.
      response = await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(requestTimeoutMs) });
    } catch {
      throw new IdentityProviderError();
    }
    if (response.status >= 500) throw new IdentityProviderError();
    const body: unknown = await response.json().catch(() => null);
    return { status: response.status, body: isObject(body) ? body : {} };
  }

  /** Discovery is fetched once per process; a failed fetch is not cached, so the next login tries again. */
  private discover(): Promise<Discovery> {
    this.discovery ??= this.fetchDiscovery().catch((error: unknown) => {
      this.discovery = null;
      throw error;
    });
    return this.discovery;
  }

  private async fetchDiscovery(): Promise<Discovery> {
    const { status, body } = await this.request(`${this.settings.issuer}/.well-known/openid-configuration`);
    const { issuer, token_endpoint, jwks_uri } = body;
    if (status !== 200 || typeof issuer !== "string" || typeof token_endpoint !== "string" || typeof jwks_uri !== "string") {
      throw new IdentityProviderError("its discovery document is missing or incomplete");
    }
    // Discovery 4.3: the document must speak for the issuer we were configured with.
    if (issuer.replace(/\/+$/, "") !== this.settings.issuer) throw new IdentityProviderError(`its discovery document names issuer ${issuer}`);
    const methods = body.token_endpoint_auth_methods_supported;
    return {
      issuer,
      token_endpoint,
      jwks_uri,
      authorization_endpoint: typeof body.authorization_endpoint === "string" ? body.authorization_endpoint : undefined,
      userinfo_endpoint: typeof body.userinfo_endpoint === "string" ? body.userinfo_endpoint : undefined,
      token_endpoint_auth_methods_supported: Array.isArray(methods) ? methods.filter((m): m is string => typeof m === "string") : undefined,
    };
  }

  private async redeem(discovery: Discovery, code: string): Promise<Json> {
    const form = new URLSearchParams({ grant_type: "authorization_code", code, redirect_uri: this.settings.redirectUri });
    const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", accept: "application/json" };
    const methods = discovery.token_endpoint_auth_methods_supported;
    // client_secret_basic is the default (Discovery 3); post only when the provider says it is all it takes.
    if (methods && !methods.includes("client_secret_basic") && methods.includes("client_secret_post")) {
      form.set("client_id", this.settings.clientId);
      form.set("client_secret", this.settings.clientSecret);
    } else {
      headers.authorization = `Basic ${btoa(`${formEncode(this.settings.clientId)}:${formEncode(this.settings.clientSecret)}`)}`;
    }
    const { status, body } = await this.request(discovery.token_endpoint, { method: "POST", headers, body: form });
    if (status === 200) return body;
    // RFC 6749 5.2: invalid_grant covers unknown, used, expired and foreign codes; the rest is our setup's fault.
    if (body.error === "invalid_grant") throw invalidCode();
    throw new IdentityProviderError(`it refused the code exchange (${typeof body.error === "string" ? body.error : `HTTP ${status}`})`);
  }

  /** Core 3.1.3.7: signature by a key of the issuer's JWKS, then iss, aud, exp and iat. */
  private async verifyIdToken(discovery: Discovery, jwt: string): Promise<Json & { sub: string }> {
    const [headerPart, payloadPart, signaturePart] = jwt.split(".");
    const header = decodeSegment(headerPart);
    const claims = decodeSegment(payloadPart);
    const alg = typeof header.alg === "string" ? header.alg : "";
    const algorithm = scheme(alg);
    if (!algorithm || signaturePart === undefined) throw new IdentityProviderError(`its ID token is signed with an unsupported algorithm (${alg || "none"})`);
    // RFC 7515 4.1.11: extensions we do not understand must make the token invalid.
    if (header.crit !== undefined) throw new IdentityProviderError("its ID token uses critical JWS extensions");
    const signed = new TextEncoder().encode(`${headerPart}.${payloadPart}`);
    if (!(await this.signedByIssuer(discovery, header, algorithm, signed, base64url(signaturePart))))
      throw new IdentityProviderError("its ID token signature does not verify");

    const now = this.now() / 1000;
    const audience = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== discovery.issuer) throw new IdentityProviderError("its ID token names another issuer");
    if (!audience.includes(this.settings.clientId)) throw new IdentityProviderError("its ID token is for another client");
    if (typeof claims.exp !== "number" || claims.exp + clockSkewSeconds <= now) throw new IdentityProviderError("its ID token has expired");
    if (typeof claims.iat !== "number" || claims.iat - clockSkewSeconds > now || claims.iat > claims.exp)
      throw new IdentityProviderError("its ID token has an implausible issue time");
    if (typeof claims.sub !== "string" || claims.sub === "" || claims.sub.length > 255) throw new IdentityProviderError("its ID token has no valid subject");
    return { ...claims, sub: claims.sub };
  }

  private async signedByIssuer(discovery: Discovery, header: Json, algorithm: Scheme, signed: Uint8Array, signature: Uint8Array): Promise<boolean> {
    const kid = typeof header.kid === "string" ? header.kid : undefined;
    for (const jwk of await this.keysFor(discovery, kid, algorithm.alg, algorithm.kty)) {
      // Only the public parts: a JWKS entry's `key_ops` or `ext` would otherwise make the import fail.
      const publicJwk: webcrypto.JsonWebKey = { kty: jwk.kty, n: jwk.n, e: jwk.e, crv: jwk.crv, x: jwk.x, y: jwk.y };
      const key = await crypto.subtle.importKey("jwk", publicJwk, algorithm.key, false, ["verify"]).catch(() => null);
      if (key && (await crypto.subtle.verify(algorithm.verify, key, signature, signed).catch(() => false))) return true;
    }
    return false;
  }

  /** Keys that may have signed the token; an unknown `kid` refetches the JWKS once, since providers rotate keys. */
  private async keysFor(discovery: Discovery, kid: string | undefined, alg: string, kty: string): Promise<Jwk[]> {
    const pick = (keys: Jwk[]) =>
      keys.filter((k) => k.kty === kty && (k.use ?? "sig") === "sig" && (k.alg ?? alg) === alg && (kid === undefined || k.kid === kid));
    const cached = this.jwks ? pick(await this.jwks.catch(() => [])) : [];
    if (cached.length > 0) return cached;
    this.jwks = this.fetchJwks(discovery.jwks_uri);
    return pick(await this.jwks);
  }

  private async fetchJwks(uri: string): Promise<Jwk[]> {
    const { status, body } = await this.request(uri);
    if (status !== 200 || !Array.isArray(body.keys)) throw new IdentityProviderError("its JWKS could not be read");
    return body.keys.filter(isObject) as Jwk[];
  }
}
