import { Elysia, t, type AnyElysia } from "elysia";
import { TooManyRequestsError, ValidationFailedError } from "../core/errors.ts";
import { correlationIdOf } from "../http/correlation.ts";
import { normalizeEmail } from "./claims.ts";
import type { Accounts } from "./service.ts";
import type { RateLimiter } from "./rate-limiter.ts";
import type { SocialLogin } from "./social-login.ts";
import { loginBody, registerBody, socialLoginBody, tokenResponse } from "./schemas.ts";

export type AuthRoutesDependencies = {
  accounts: Accounts;
  loginLimiter: RateLimiter;
  /** Registrations per client address per minute (REGISTRATIONS_PER_MINUTE). */
  registrationLimiter: RateLimiter;
  socialLogin: SocialLogin | null;
  authenticated: AnyElysia;
};

/** Register, login, social login (public) and logout (authenticated): spec 4.1. */
export function authRoutes({ accounts, loginLimiter, registrationLimiter, socialLogin, authenticated }: AuthRoutesDependencies) {
  const tags = ["Auth"];
  const publicRoutes = new Elysia({ name: "auth-public" })
    .post(
      "/api/register",
      async ({ body, request, set, server }) => {
        // Each address gets a few accounts a minute: every account comes with a free allowance.
        const rate = await registrationLimiter.hit(`register:${server?.requestIP(request)?.address ?? "in-process"}`);
        if (!rate.allowed) throw new TooManyRequestsError("Too many accounts registered from your address; try again in a minute.", rate.retryAfterSeconds);
        if (body.password !== body.password_confirmation) {
          throw new ValidationFailedError({ password: ["The password field confirmation does not match."] });
        }
        const response = await accounts.register(
          { name: body.name.trim(), email: body.email, password: body.password, identity: null, method: "registration" },
          correlationIdOf(request),
        );
        set.status = 201;
        return response;
      },
      {
        body: registerBody,
        response: { 201: tokenResponse },
        detail: {
          tags,
          summary: "Create an account",
          description:
            "201 with a token. 422 when a field is invalid, the email is taken, or the confirmation differs. 429 (with Retry-After) past REGISTRATIONS_PER_MINUTE registrations from one client address (default 5).",
        },
      },
    )
    .post(
      "/api/login",
      async ({ body, request }) => {
        // Every attempt counts, right or wrong, so guessing is capped at the limit per minute per email.
        const rate = await loginLimiter.hit(`login:${normalizeEmail(body.email)}`);
        if (!rate.allowed) throw new TooManyRequestsError("Too many login attempts. Please try again in a minute.", rate.retryAfterSeconds);
        return accounts.login(body.email, body.password, correlationIdOf(request));
      },
      {
        body: loginBody,
        response: { 200: tokenResponse },
        detail: {
          tags,
          summary: "Log in with email and password",
          description:
            "401 for a wrong email or password (the same answer for both). 429 after LOGIN_ATTEMPTS_PER_MINUTE (5) attempts per minute per email, with Retry-After.",
        },
      },
    )
    .post(
      "/api/auth/social-login",
      async ({ body, request }) => {
        if (body.provider !== "idp") throw new ValidationFailedError({ provider: ["The selected provider is invalid. Supported: idp."] });
        if (!socialLogin) throw new ValidationFailedError({ provider: ["Social login is not configured on this server (IDP_ISSUER)."] });
        return socialLogin.login(body.code, correlationIdOf(request));
      },
      {
        body: socialLoginBody,
        response: { 200: tokenResponse },
        detail: {
          tags,
          summary: "Log in through the identity provider",
          description: "Exchanges an OAuth 2.0 / OpenID Connect authorization code with the configured issuer; creates the account on first login.",
        },
      },
    );

  const logout = new Elysia({ name: "auth-logout" }).use(authenticated).post(
    "/api/logout",
    async ({ caller, request, set }) => {
      await accounts.logout(caller, correlationIdOf(request));
      set.status = 204;
    },
    { response: { 204: t.Void() }, detail: { tags, summary: "Revoke the token that made this request", security: [{ bearer: [] }] } },
  );

  return new Elysia({ name: "auth-routes" }).use(publicRoutes).use(logout);
}
