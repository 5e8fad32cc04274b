import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import type { SignInLimits } from "../accounts/sign-in-rules.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { OwnSite } from "../http/cross-site.ts";
import { clearedSessionCookies } from "../accounts/session-cookie.ts";
import type { AccountErasure } from "./account-erasure.ts";
import { confirmErasure, freshSignInMs } from "./account-erasure-confirmation.ts";

export type ErasureRoutesDependencies = {
  erasure: AccountErasure;
  db: DocumentStore;
  authenticated: Authenticated;
  /** The login's limits: each password check counts as a login attempt on the account's email (429 once spent). */
  signInLimits: Pick<SignInLimits, "login">;
  /** Where our own pages are: a web app session's cookies are cleared in the answer. */
  site: OwnSite;
  now?: () => Date;
};

/** The password of `DELETE /api/user`: bounded like a login's, so a huge one is refused before it is hashed. */
export const eraseAccountBody = t.Object({
  password: t.Optional(
    t.String({
      minLength: 1,
      maxLength: 255,
      description: "The account's password. Required when the account has one; an account made through the identity provider has none.",
    }),
  ),
});

const description = [
  "Erases the account for good: its tasks (with their media, transcripts, exports and search entries), profile, avatar,",
  "API keys, access tokens, web app sessions, webhooks, notifications and folders; its email address is free to register",
  "again; its personal data in the event log becomes unreadable (its data keys are destroyed). The balance and payments",
  "keep their amounts in the log, without a name. 204 once done: every credential of the account is refused (401) from",
  "then on, and the files of its tasks are gone. Should the erasure stop half way (the service failing), the service's",
  "workers finish it.",
  "Confirm with `password` (403 when it is wrong, 422 when it is missing). Each password checked counts as a login attempt",
  "on the account's email: past LOGIN_ATTEMPTS_PER_MINUTE a minute (counted with POST /api/login and /api/session), 429 with",
  "Retry-After, the password unchecked. An account without a password (social login)",
  `must have signed in within the last ${freshSignInMs / 60_000} minutes with the token or session making the request`,
  "(403 otherwise). API keys can never do it (403). With the web app's session, the answer clears its cookies.",
].join(" ");

/** `DELETE /api/user`: the account's erasure (src/erasure/account-erasure.ts), confirmed by its owner. */
export function erasureRoutes({ erasure, db, authenticated, signInLimits, site, now = () => new Date() }: ErasureRoutesDependencies) {
  return new Elysia({ name: "erasure-routes" }).use(authenticated).delete(
    "/api/user",
    async ({ body, caller, user, metadata, request, server, set }) => {
      const throttle = () => signInLimits.login({ email: user.email }, { request, server });
      await confirmErasure(db, caller, user, body?.password, now(), throttle);
      await erasure.erase(caller.userId, "user", metadata);
      if (caller.kind === "session") set.headers["set-cookie"] = clearedSessionCookies(site.secure({ request, server }));
      set.status = 204;
    },
    {
      body: t.Optional(eraseAccountBody),
      response: { 204: t.Void() },
      detail: { tags: ["User"], security: [{ bearer: [] }], summary: "Delete the account and everything in it", description },
    },
  );
}
