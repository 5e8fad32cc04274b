import { Elysia, t } from "elysia";
import type { Authenticated } from "./authentication.ts";
import { correlationIdOf } from "../http/correlation.ts";
import type { Accounts, SignedIn, TokenResponse } from "./service.ts";
import type { SocialLogin } from "./social-login.ts";
import { loginBody, registerBody, socialLoginBody, tokenResponse } from "./schemas.ts";
import { registrationOf, socialLoginFor, type SignInLimits } from "./sign-in-rules.ts";

const asToken = ({ secret, user }: SignedIn): TokenResponse => ({ token: secret, user });

export type AuthRoutesDependencies = {
  accounts: Accounts;
  signInLimits: SignInLimits;
  /** Registrations per client address per minute (REGISTRATIONS_PER_MINUTE). */
  socialLogin: SocialLogin | null;
  authenticated: Authenticated;
};

const tags = ["Auth"];

/** Register, login and social login: public, under the sign-in limits. */
function publicAuthRoutes({ accounts, signInLimits, socialLogin }: AuthRoutesDependencies) {
  return new Elysia({ name: "auth-public" })
    .use(signInLimits.spentEarly)
    .post(
      "/api/register",
      async ({ body, request, set }) => {
        const response = await accounts.register(registrationOf(body), correlationIdOf(request));
        set.status = 201;
        return asToken(response);
      },
      {
        transform: ({ request, server }) => signInLimits.registration({ request, server }),
        body: registerBody,
        response: { 201: tokenResponse },
        detail: {
          tags,
          summary: "Create an account",
          description:
            "201 with a token, which lasts TOKEN_TTL_DAYS (default 30) after its last use, then 401. 422 when a field is invalid, the email is " +
            "taken, or the confirmation differs. 429 (with Retry-After) past REGISTRATIONS_PER_MINUTE attempts a minute from one client address " +
            "(default 5): every attempt counts, refused ones included, and the limit is checked before the body is validated.",
        },
      },
    )
    .post(
      "/api/login",
      async ({ body, request }) => {
        return asToken(await accounts.login(body.email, body.password, correlationIdOf(request)));
      },
      {
        transform: ({ body, request, server }) => signInLimits.login(body, { request, server }),
        body: loginBody,
        response: { 200: tokenResponse },
        detail: {
          tags,
          summary: "Log in with email and password",
          description:
            "200 with a new token, which lasts TOKEN_TTL_DAYS (default 30) after its last use (each request moves its end on), then 401. 401 " +
            "for a wrong email or password (the same answer for both). 429 after LOGIN_ATTEMPTS_PER_MINUTE (5) attempts per minute per email, " +
            "with Retry-After; every attempt counts, 422s included, checked before the body is validated, and a body without a usable email " +
            "(missing, not a string, over 255 characters) counts toward its client address instead.",
        },
      },
    )
    .post(
      "/api/auth/social-login",
      async ({ body, request }) => {
        return asToken(await socialLoginFor(socialLogin, body.provider).login(body.code, correlationIdOf(request)));
      },
      {
        body: socialLoginBody,
        response: { 200: tokenResponse },
        detail: {
          tags,
          summary: "Log in through the identity provider",
          description:
            "Exchanges an OAuth 2.0 / OpenID Connect authorization code with the configured issuer; creates the account on first login. The " +
            "token lasts TOKEN_TTL_DAYS (default 30) after its last use, like a password login's.",
        },
      },
    );
}

/** Logout: revokes the credential the request came with. */
function logoutRoutes({ accounts, authenticated }: AuthRoutesDependencies) {
  return new Elysia({ name: "auth-logout" }).use(authenticated).post(
    "/api/logout",
    async ({ caller, request, set }) => {
      await accounts.logout(caller, correlationIdOf(request));
      set.status = 204;
    },
    {
      response: { 204: t.Void() },
      detail: {
        tags,
        summary: "Revoke the token that made this request",
        description: "Revokes the access token of `Authorization`; with the web app's session cookie, ends that session. 403 for an API key.",
        security: [{ bearer: [] }],
      },
    },
  );
}

/** Register, login, social login (public) and logout (authenticated): spec 4.1. */
export function authRoutes(dependencies: AuthRoutesDependencies) {
  return new Elysia({ name: "auth-routes" }).use(publicAuthRoutes(dependencies)).use(logoutRoutes(dependencies));
}
