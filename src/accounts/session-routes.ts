import { Elysia, t } from "elysia";
import type { Authenticated } from "./authentication.ts";
import { UnauthenticatedError } from "../core/errors.ts";
import { correlationIdOf } from "../http/correlation.ts";
import { refuseCrossSite, type OwnSite } from "../http/cross-site.ts";
import type { RequestContext } from "../http/request-origin.ts";
import { loginBody, registerBody, sessionResponse, socialLoginBody } from "./schemas.ts";
import type { Accounts, Caller, SignedIn } from "./service.ts";
import { clearedSessionCookies, sessionCookieName, sessionCookies } from "./session-cookie.ts";
import { registrationOf, socialLoginFor, type SignInLimits } from "./sign-in-rules.ts";
import type { SocialLogin } from "./social-login.ts";

export type SessionRoutesDependencies = {
  accounts: Accounts;
  signInLimits: SignInLimits;
  socialLogin: SocialLogin | null;
  authenticated: Authenticated;
  site: OwnSite;
};

type Headers = Record<string, string | number | string[]>;

/** A session's secret in a cookie, never in the body; nothing of the answer is kept by a cache. */
function started(signedIn: SignedIn, headers: Headers, secure: boolean) {
  headers["set-cookie"] = sessionCookies(signedIn.secret, signedIn.expiresAt!, new Date(), secure);
  headers["cache-control"] = "no-store";
  return { user: signedIn.user, expires_at: signedIn.expiresAt! };
}

/** GET and DELETE /api/session read the cookie only: a bearer token has no session to show or end. */
function sessionOf(caller: Caller): Caller {
  if (caller.kind !== "session") throw new UnauthenticatedError("No web app session: this endpoint reads the session cookie, not a bearer token.");
  return caller;
}

const security = [{ session: [] }];
const tags = ["Session"];
const signInNote =
  "For the web app: the answer sets the `scribe_session` cookie (HttpOnly, SameSite=Strict, Path=/, Secure over https) and carries no " +
  "token. 403 unless the request comes from this service's own pages (Origin, else Sec-Fetch-Site or Referer). API clients use the " +
  "endpoints of Auth, which answer a bearer token.";

/** Sign in with email and password, register, or sign in through the identity provider: each from our own pages only. */
function signInRoutes({ accounts, signInLimits, socialLogin, site }: SessionRoutesDependencies) {
  const ownPage = (context: RequestContext) => refuseCrossSite(context.request, site.origins(context));
  return new Elysia({ name: "session-sign-in" })
    .use(signInLimits.spentEarly)
    .post(
      "/api/session",
      async ({ body, request, server, set }) => {
        const signedIn = await accounts.login(body.email, body.password, correlationIdOf(request), "session");
        return started(signedIn, set.headers as Headers, site.secure({ request, server }));
      },
      {
        transform: async ({ body, request, server }) => {
          ownPage({ request, server });
          await signInLimits.login(body, { request, server });
        },
        body: loginBody,
        response: { 200: sessionResponse },
        detail: {
          tags,
          summary: "Sign in to the web app with email and password",
          description:
            `${signInNote} 401 for a wrong email or password (the same answer for both). 429 after LOGIN_ATTEMPTS_PER_MINUTE attempts a ` +
            "minute per email, counted together with POST /api/login and as it counts them.",
          security: [],
        },
      },
    )
    .post(
      "/api/session/register",
      async ({ body, request, server, set }) => {
        const signedIn = await accounts.register(registrationOf(body), correlationIdOf(request), "session");
        set.status = 201;
        return started(signedIn, set.headers as Headers, site.secure({ request, server }));
      },
      {
        transform: async ({ request, server }) => {
          ownPage({ request, server });
          await signInLimits.registration({ request, server });
        },
        body: registerBody,
        response: { 201: sessionResponse },
        detail: {
          tags,
          summary: "Create an account and sign in to the web app",
          description:
            `${signInNote} 422 as for POST /api/register; 429 past REGISTRATIONS_PER_MINUTE attempts a minute from one client address, ` +
            "counted together with it and as it counts them.",
          security: [],
        },
      },
    )
    .post(
      "/api/session/social",
      async ({ body, request, server, set }) => {
        ownPage({ request, server });
        const signedIn = await socialLoginFor(socialLogin, body.provider).login(body.code, correlationIdOf(request), "session");
        return started(signedIn, set.headers as Headers, site.secure({ request, server }));
      },
      {
        body: socialLoginBody,
        response: { 200: sessionResponse },
        detail: {
          tags,
          summary: "Sign in to the web app through the identity provider",
          description:
            `${signInNote} The code is exchanged as by POST /api/auth/social-login (422 for an unknown provider or a bad code, 502 when the ` +
            "provider fails).",
          security: [],
        },
      },
    );
}

/** The signed-in session: who it is, and signing out. */
function currentSessionRoutes({ accounts, authenticated, site }: SessionRoutesDependencies) {
  return new Elysia({ name: "session-current" })
    .use(authenticated)
    .get(
      "/api/session",
      ({ caller, user, expiresAt, set }) => {
        sessionOf(caller);
        (set.headers as Headers)["cache-control"] = "no-store";
        return { user: { id: user.id, name: user.name, email: user.email }, expires_at: expiresAt! };
      },
      {
        response: { 200: sessionResponse },
        detail: {
          tags,
          summary: "Who is signed in to the web app",
          description: "The session cookie's user; 401 without a live session (no cookie, or one that is unknown, tampered with, expired or ended).",
          security,
        },
      },
    )
    .delete(
      "/api/session",
      async ({ caller, request, server, set }) => {
        await accounts.logout(sessionOf(caller), correlationIdOf(request));
        (set.headers as Headers)["set-cookie"] = clearedSessionCookies(site.secure({ request, server }));
        set.status = 204;
      },
      {
        response: { 204: t.Void() },
        detail: {
          tags,
          summary: "Sign out of the web app",
          description:
            `Ends the session (its cookie is refused from now on, here and in every other tab) and clears the \`${sessionCookieName}\` cookie. ` +
            "403 unless the request comes from this service's own pages.",
          security,
        },
      },
    );
}

/**
 * The web app's first-party session (docs/web-app.md). Signing in here hands out no token: the secret goes into an
 * HttpOnly cookie, which the authentication plugin accepts on every API route with its own rate limit
 * (SESSION_RATE_LIMIT_PER_MINUTE), under the login throttle and registration limit of `/api/login` and
 * `/api/register`. Every sign-in is refused unless it comes from our own pages, so another site cannot sign a
 * visitor in to an account of its choosing.
 */
export function sessionRoutes(dependencies: SessionRoutesDependencies) {
  return new Elysia({ name: "session-routes" }).use(signInRoutes(dependencies)).use(currentSessionRoutes(dependencies));
}
