/** The accounts capability: what the composition root wires (services, routes), its read models and its worker. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { OwnSite } from "../http/cross-site.ts";
import type { Accounts } from "./service.ts";
import type { Authenticated } from "./authentication.ts";
import type { SignInLimits } from "./sign-in-rules.ts";
import type { SocialLogin } from "./social-login.ts";
import type { QueueOf, RetentionSetting } from "./user-view.ts";
import { usersProjection } from "./users-projection.ts";
import { credentialsProjection } from "./credentials-projection.ts";
import { accountSettings } from "./settings.ts";

export type { Accounts } from "./service.ts";
export type { Authenticated } from "./authentication.ts";
export type { SignInLimits } from "./sign-in-rules.ts";
export type { SocialLogin } from "./social-login.ts";
export type { OidcClient } from "./oidc-client.ts";
export type { QueueOf, RetentionSetting } from "./user-view.ts";
export { AccountCommands, userIdOf } from "./commands.ts";

/**
 * What the composition root builds the accounts and their authentication from, loaded when the api role starts: the
 * command-line tools read this index for its projections, and must not load the accounts' services to do so.
 */
export async function accountsServices() {
  const [{ Accounts }, { RateLimiter }, { authentication }, { OidcClient }, { OidcSocialLogin }, { SignInLimits }] = await Promise.all([
    import("./service.ts"),
    import("./rate-limiter.ts"),
    import("./authentication.ts"),
    import("./oidc-client.ts"),
    import("./social-login.ts"),
    import("./sign-in-rules.ts"),
  ]);
  return { Accounts, RateLimiter, authentication, OidcClient, OidcSocialLogin, SignInLimits };
}

/** What the accounts' routes are built from: the accounts and their authentication, built once by the composition root for every capability. */
export type AccountsApiParts = {
  adapters: { eventStore: EventStore; blobs: BlobStore };
  config: { publicUrl: string };
  accounts: Accounts;
  authenticated: Authenticated;
  signInLimits: SignInLimits;
  socialLogin: SocialLogin | null;
  site: OwnSite;
  /** The user's tasks in the queue, which the user's view shows (the tasks capability's read model, which accounts may not import). */
  queueOf: QueueOf;
  /** The account's retention (the retention capability's, which accounts may not import). */
  retention: RetentionSetting;
};

export const capability: Capability<AccountsApiParts, { adapters: { eventStore: EventStore } }, typeof accountSettings> = {
  name: "accounts",
  settings: accountSettings,
  projections: [usersProjection, credentialsProjection],
  routes: async ({ adapters, config, accounts, authenticated, signInLimits, socialLogin, site, queueOf, retention }) => {
    const [{ authRoutes }, { sessionRoutes }, { userRoutes }, { apiKeyRoutes }, { Profiles }] = await Promise.all([
      import("./routes.ts"),
      import("./session-routes.ts"),
      import("./user-routes.ts"),
      import("./api-key-routes.ts"),
      import("./profiles.ts"),
    ]);
    const profiles = new Profiles(accounts, adapters.eventStore, adapters.blobs, retention);
    return [
      authRoutes({ accounts, signInLimits, socialLogin, authenticated }),
      sessionRoutes({ accounts, signInLimits, socialLogin, authenticated, site }),
      userRoutes({ accounts, profiles, blobs: adapters.blobs, publicUrl: config.publicUrl, queueOf, retention, authenticated }),
      apiKeyRoutes({ accounts, authenticated }),
    ];
  },
  workers: async ({ adapters }) => [(await import("./email-claims-worker.ts")).emailClaimsWorker(adapters.eventStore)],
};
