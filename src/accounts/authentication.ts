import { byUser } from "../core/event.ts";
import { Elysia } from "elysia";
import { ForbiddenError, TooManyRequestsError, UnauthenticatedError } from "../core/errors.ts";
import type { Accounts, Authentication, Caller } from "./service.ts";
import { retryAfterInWords, type RateLimiter } from "./rate-limiter.ts";
import type { UserDocument } from "./users-projection.ts";
import type { EventMetadata } from "../core/event.ts";
import { correlationIdOf, requestContext } from "../http/correlation.ts";
import { bearerSecret } from "../http/bearer.ts";
import { refuseCrossSite, type OwnSite } from "../http/cross-site.ts";
import type { RequestContext } from "../http/request-origin.ts";
import { sessionCookieOf } from "./session-cookie.ts";

export type AuthenticationOptions = {
  /** RATE_LIMIT_PER_MINUTE, per token or API key (spec section 8). */
  tokens: RateLimiter;
  /** SESSION_RATE_LIMIT_PER_MINUTE, per web app session: sized for a person clicking through the app. */
  sessions: RateLimiter;
  /** Where our own pages are, for the session cookie's cross-site check. */
  site: OwnSite;
};

const sessionEnded = "You are not signed in, or your session has ended. Please sign in again.";

/**
 * Every route that uses this plugin needs a live credential (401): `Authorization: Bearer` with a token or API key
 * (API clients), or else the web app's session cookie (src/accounts/session-cookie.ts). A token dies TOKEN_TTL_DAYS
 * after its last use (src/accounts/token-lifetimes.ts). An API key only works while the account's plan has API
 * access (403). A cookie-authenticated request that changes something must come from our
 * own pages (403, src/http/cross-site.ts): a header is never sent by another site's page, a cookie is.
 * Each token or key gets RATE_LIMIT_PER_MINUTE requests a minute, each session SESSION_RATE_LIMIT_PER_MINUTE
 * (429 with Retry-After). It runs before body validation, so an anonymous request learns it must authenticate
 * before anything else. It also builds, once per request, the `metadata` the request's events carry.
 */
export function authentication(accounts: Accounts, { tokens, sessions, site }: AuthenticationOptions) {
  /** The caller of a request, by its header or else its cookie. */
  async function callerOf(context: RequestContext, authorization: string | undefined): Promise<Authentication> {
    if (authorization !== undefined) {
      const secret = bearerSecret(authorization);
      const found = secret === null ? null : await accounts.authenticate(secret, "bearer", correlationIdOf(context.request));
      if (!found) throw new UnauthenticatedError();
      return found;
    }
    const cookie = sessionCookieOf(context.request.headers.get("cookie"));
    if (cookie === "absent") throw new UnauthenticatedError();
    // Before the lookup: another site's request learns nothing of whether the cookie is live.
    refuseCrossSite(context.request, site.origins(context));
    const found = cookie === "malformed" ? null : await accounts.authenticate(cookie.secret, "cookie");
    if (!found) throw new UnauthenticatedError(sessionEnded);
    return found;
  }

  // The header is read from the request: Elysia reads a hook's source to learn what a route uses, and `headers`
  // named here made every authenticated request copy all its headers into an object first.
  return new Elysia({ name: "authentication" }).derive(
    { as: "scoped" },
    async ({
      set,
      request,
      server,
    }): Promise<{
      caller: Caller;
      user: UserDocument;
      metadata: EventMetadata /** A session's end, or a token's unless used again; null for API keys. */;
      expiresAt: string | null;
    }> => {
      const { caller, user, expiresAt } = await callerOf({ request, server }, request.headers.get("authorization") ?? undefined);
      if (caller.kind === "api_key" && !accounts.hasApiAccess(user)) {
        throw new ForbiddenError("API access needs a Pro, Max or pay-as-you-go plan.");
      }
      const rate = caller.kind === "session" ? await sessions.hit(`session:${caller.credentialId}`) : await tokens.hit(caller.credentialId);
      if (!rate.allowed)
        throw new TooManyRequestsError(`Too many requests. Try again in ${retryAfterInWords(rate.retryAfterSeconds)}.`, rate.retryAfterSeconds);
      set.headers["x-ratelimit-remaining"] = String(rate.remaining);
      // The metadata of every event this request causes: who acted, and the request's correlation id.
      const context = requestContext(request);
      context.userId = caller.userId;
      return { caller, user, expiresAt, metadata: byUser(caller.userId, context.id) };
    },
  );
}

/** The authentication plugin: a route that `.use`s it gets `caller`, `user`, `metadata` and `expiresAt`, typed. */
export type Authenticated = ReturnType<typeof authentication>;
