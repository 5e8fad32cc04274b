import { byUser } from "../core/event.ts";
import { Elysia } from "elysia";
import { ForbiddenError, TooManyRequestsError, UnauthenticatedError } from "../core/errors.ts";
import type { Accounts, Caller } from "./service.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import type { UserDocument } from "./users-projection.ts";
import type { EventMetadata } from "../core/event.ts";
import { requestContext } from "../http/correlation.ts";
import { bearerSecret } from "../http/bearer.ts";

/**
 * Every route that uses this plugin needs a live token or API key (401), an API key only works
 * while the account's plan has API access (403), and each credential gets RATE_LIMIT_PER_MINUTE
 * requests a minute (429 with Retry-After). It runs before body validation, so an anonymous
 * request learns it must authenticate before anything else. It also builds, once per request, the
 * `metadata` the request's events carry.
 */
export function authentication(accounts: Accounts, limiter: RateLimiter) {
  return new Elysia({ name: "authentication" }).derive(
    { as: "scoped" },
    async ({ headers, set, request }): Promise<{ caller: Caller; user: UserDocument; metadata: EventMetadata }> => {
      const secret = bearerSecret(headers.authorization);
      if (!secret) throw new UnauthenticatedError();
      const found = await accounts.authenticate(secret);
      if (!found) throw new UnauthenticatedError();
      if (found.caller.kind === "api_key" && !accounts.hasApiAccess(found.user)) {
        throw new ForbiddenError("API access needs a Pro, Max or pay-as-you-go plan.");
      }
      const rate = await limiter.hit(found.caller.credentialId);
      if (!rate.allowed) throw new TooManyRequestsError("Too many requests. Slow down and retry after the time in Retry-After.", rate.retryAfterSeconds);
      set.headers["x-ratelimit-remaining"] = String(rate.remaining);
      // The metadata of every event this request causes: who acted, and the request's correlation id.
      const context = requestContext(request);
      context.userId = found.caller.userId;
      return { ...found, metadata: byUser(found.caller.userId, context.id) };
    },
  );
}
