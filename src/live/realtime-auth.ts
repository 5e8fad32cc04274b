/**
 * Who opens a live session, decided before any audio is taken: an API key of a plan with API access, given as
 * `Authorization: Bearer` (servers) or as the `openai-insecure-api-key.<key>` subprotocol (browsers, which cannot set
 * headers on a WebSocket), or the web app's session cookie. A browser sends the cookie with a WebSocket opened by any
 * site's page, and the handshake is a GET, so the Origin check that other cookie-authenticated requests get only when
 * they change something (src/http/cross-site.ts) is made here on every upgrade. Each credential is counted against the
 * same per-minute limits as on every other route.
 */
import type { Accounts } from "../accounts/service.ts";
import type { Authentication } from "../accounts/credential-lookup.ts";
import type { RateLimiter } from "../accounts/rate-limiter.ts";
import { retryAfterInWords } from "../accounts/rate-limiter.ts";
import { sessionCookieOf } from "../accounts/session-cookie.ts";
import { bearerSecret } from "../http/bearer.ts";
import { correlationIdOf } from "../http/correlation.ts";
import { fromOwnPage, type OwnSite } from "../http/cross-site.ts";
import type { RequestContext } from "../http/request-origin.ts";

/** The subprotocol prefix OpenAI's browser clients carry their key in. */
export const keyProtocolPrefix = "openai-insecure-api-key.";

export type Refusal = { code: string; message: string };
export type Admitted = { ok: true; authentication: Authentication };

export type UpgradeAuthentication = {
  accounts: Accounts;
  site: OwnSite;
  /** RATE_LIMIT_PER_MINUTE and SESSION_RATE_LIMIT_PER_MINUTE, as the authentication plugin counts them. */
  tokens: RateLimiter;
  sessions: RateLimiter;
};

/** The protocols a client offered (`Sec-WebSocket-Protocol`), in order. */
export const offeredProtocols = (request: Request): string[] =>
  (request.headers.get("sec-websocket-protocol") ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");

const refused = (code: string, message: string): { ok: false; refusal: Refusal } => ({ ok: false, refusal: { code, message } });

/** The account opening the session, or why it may not. */
export async function authenticateUpgrade(context: RequestContext, auth: UpgradeAuthentication): Promise<Admitted | { ok: false; refusal: Refusal }> {
  const { request } = context;
  const header = request.headers.get("authorization");
  const keyProtocol = offeredProtocols(request).find((name) => name.startsWith(keyProtocolPrefix));
  let found: Authentication | null;
  if (header !== null || keyProtocol !== undefined) {
    const secret = header !== null ? bearerSecret(header) : keyProtocol!.slice(keyProtocolPrefix.length);
    found = secret === null || secret === "" ? null : await auth.accounts.authenticate(secret, "bearer", correlationIdOf(request));
    if (found === null) return refused("invalid_api_key", "The API key is missing, malformed, revoked or unknown.");
    if (found.caller.kind !== "api_key") {
      return refused("invalid_api_key", "The realtime endpoint takes an API key (sk_...), not a login token; the web app signs in with its session.");
    }
    if (!auth.accounts.hasApiAccess(found.user)) return refused("insufficient_plan", "API access needs a Pro, Max or pay-as-you-go plan.");
  } else {
    const cookie = sessionCookieOf(request.headers.get("cookie"));
    if (cookie === "absent")
      return refused("missing_credentials", "Authenticate with an API key (Authorization: Bearer sk_..., or the openai-insecure-api-key subprotocol).");
    if (!fromOwnPage(request, auth.site.origins(context))) {
      return refused(
        "cross_site",
        "This connection did not come from this site's own pages (its Origin is another site's, or missing), so the session cookie is not accepted.",
      );
    }
    found = cookie === "malformed" ? null : await auth.accounts.authenticate(cookie.secret, "cookie");
    if (found === null) return refused("session_ended", "You are not signed in, or your session has ended. Please sign in again.");
  }
  const { caller } = found;
  const rate = caller.kind === "session" ? await auth.sessions.hit(`session:${caller.credentialId}`) : await auth.tokens.hit(caller.credentialId);
  if (!rate.allowed) return refused("rate_limit_exceeded", `Too many requests. Try again in ${retryAfterInWords(rate.retryAfterSeconds)}.`);
  return { ok: true, authentication: found };
}
