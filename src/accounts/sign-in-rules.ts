import { TooManyRequestsError, ValidationFailedError } from "../core/errors.ts";
import type { RequestContext } from "../http/request-origin.ts";
import { normalizeEmail } from "./claims.ts";
import { retryAfterInWords, type RateLimiter } from "./rate-limiter.ts";
import type { registerBody } from "./schemas.ts";
import type { Registration } from "./service.ts";
import type { SocialLogin } from "./social-login.ts";

/**
 * What signing in and registering share, whether they hand out a token (`/api/login`, `/api/register`) or a web
 * app session (`/api/session`): one login throttle per email and one registration limit per address for both.
 */

/** Every attempt counts, right or wrong, so guessing is capped at LOGIN_ATTEMPTS_PER_MINUTE per email. */
export async function throttleLogin(limiter: RateLimiter, email: string): Promise<void> {
  const rate = await limiter.hit(`login:${normalizeEmail(email)}`);
  if (!rate.allowed)
    throw new TooManyRequestsError(`Too many login attempts. Try again in ${retryAfterInWords(rate.retryAfterSeconds)}.`, rate.retryAfterSeconds);
}

/** Each address gets REGISTRATIONS_PER_MINUTE accounts a minute: every account comes with a free allowance. */
export async function throttleRegistration(limiter: RateLimiter, { request, server }: RequestContext): Promise<void> {
  const rate = await limiter.hit(`register:${server?.requestIP(request)?.address ?? "in-process"}`);
  if (!rate.allowed) {
    throw new TooManyRequestsError(
      `Too many accounts registered from your address. Try again in ${retryAfterInWords(rate.retryAfterSeconds)}.`,
      rate.retryAfterSeconds,
    );
  }
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
