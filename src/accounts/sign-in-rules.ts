import { Elysia } from "elysia";
import { TooManyRequestsError, ValidationFailedError } from "../core/errors.ts";
import { longestEmail } from "../http/formats.ts";
import type { ClientAddressOf, RequestContext } from "../http/request-origin.ts";
import { normalizeEmail } from "./claims.ts";
import { retryAfterInWords, type RateLimiter } from "./rate-limiter.ts";
import type { registerBody } from "./schemas.ts";
import type { Registration } from "./service.ts";
import type { SocialLogin } from "./social-login.ts";

/**
 * What signing in and registering share, whether they hand out a token (`/api/login`, `/api/register`) or a web
 * app session (`/api/session`): one login throttle per email and one registration limit per address for both.
 * The routes run both before the body is validated (Elysia's `transform`), so a refused attempt counts like any
 * other and, once the limit is spent, a hostile body costs a 429 rather than its validation.
 */

/**
 * What a login attempt counts under: the email it names, as the spec asks; a body without a usable one (missing,
 * not a string, empty or over 255 characters) under `address` instead, so those attempts are limited too and no
 * hostile value becomes a key in the store.
 */
export function loginThrottleKey(body: unknown, address: string): string {
  const email = body !== null && typeof body === "object" && Object.hasOwn(body, "email") ? (body as { email: unknown }).email : undefined;
  if (typeof email === "string" && email.length > 0 && email.length <= longestEmail) return `login:${normalizeEmail(email)}`;
  return `login-from:${address}`;
}

const registrationKey = (address: string) => `register:${address}`;
const tooManyRegistrations = (retryAfterSeconds: number) =>
  new TooManyRequestsError(`Too many registration attempts from your address. Try again in ${retryAfterInWords(retryAfterSeconds)}.`, retryAfterSeconds);

/** The paths that register, and those that sign in with a password, whatever they hand out (a token or a session). */
const registrationPaths = new Set(["/api/register", "/api/session/register"]);
const loginPaths = new Set(["/api/login", "/api/session"]);

/**
 * The login throttle and the registration limit, counted by the client's address (behind a trusted proxy, the
 * address it forwards: request-origin.ts's clientAddresses).
 */
export class SignInLimits {
  constructor(
    private readonly logins: RateLimiter,
    private readonly registrations: RateLimiter,
    private readonly addressOf: ClientAddressOf,
  ) {}

  /** Every attempt counts, right, wrong or malformed, so guessing is capped at LOGIN_ATTEMPTS_PER_MINUTE per email. */
  async login(body: unknown, context: RequestContext): Promise<void> {
    const rate = await this.logins.hit(loginThrottleKey(body, this.addressOf(context)));
    if (!rate.allowed)
      throw new TooManyRequestsError(`Too many login attempts. Try again in ${retryAfterInWords(rate.retryAfterSeconds)}.`, rate.retryAfterSeconds);
  }

  /**
   * Each address gets REGISTRATIONS_PER_MINUTE attempts a minute, refused ones included: every account comes with a
   * free allowance, and a refused one costs the server its validation.
   */
  async registration(context: RequestContext): Promise<void> {
    const rate = await this.registrations.hit(registrationKey(this.addressOf(context)));
    if (!rate.allowed) throw tooManyRegistrations(rate.retryAfterSeconds);
  }

  /**
   * Once this process knows an address has spent its registrations for the minute, a registration from it (to either
   * path) is 429 before its body is read: a client sending 1 MiB registrations as fast as it can then costs next to
   * nothing. (Not counted: it was refused before it could be an attempt.) One hook for both paths, used by both sets
   * of routes: Elysia runs every `onRequest` hook for every request, so it looks at nothing but the method and path
   * until they match.
   */
  readonly spentEarly = new Elysia({ name: "registrations-spent-early" }).onRequest(({ request, server }) => {
    if (request.method !== "POST" || !registrationPaths.has(new URL(request.url, "http://localhost").pathname)) return;
    const retryAfter = this.registrations.knownSpent(registrationKey(this.addressOf({ request, server })));
    if (retryAfter !== null) throw tooManyRegistrations(retryAfter);
  });

  /**
   * A sign-in or registration refused by its size (413, before its body is read) is an attempt like any other: it
   * counts toward its address's registrations, or toward its address's logins (there is no email to count it under),
   * and is 429 instead once those are spent. For request-limits.ts, which refuses before the routes' hooks run and
   * has read the request's path already.
   */
  readonly refusedBySize = async (context: RequestContext, path: string): Promise<void> => {
    if (context.request.method !== "POST") return;
    if (registrationPaths.has(path)) await this.registration(context);
    else if (loginPaths.has(path)) await this.login(undefined, context);
  };
}

/** The registration a valid body asks for; a confirmation that differs is a 422 on `password`. */
export function registrationOf(body: typeof registerBody.static): Registration {
  if (body.password !== body.password_confirmation) {
    throw new ValidationFailedError({ password: ["The password field confirmation does not match."] });
  }
  return { name: body.name.trim(), email: body.email, password: body.password, identity: null, method: "registration" };
}

/** The social login a body names: only `idp`, and only where IDP_ISSUER is set (422 on `provider` otherwise). */
export function socialLoginFor(socialLogin: SocialLogin | null, provider: string): SocialLogin {
  if (provider !== "idp") throw new ValidationFailedError({ provider: ["The selected provider is invalid. Supported: idp."] });
  if (!socialLogin) throw new ValidationFailedError({ provider: ["Social login is not configured on this server (IDP_ISSUER)."] });
  return socialLogin;
}
