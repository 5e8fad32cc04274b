import type { AnyElysia } from "elysia";
import type { Config } from "../config.ts";
import type { Adapters } from "../adapters.ts";
import type { WaitForProjections } from "../core/projection.ts";
import { Accounts } from "./service.ts";
import { RateLimiter } from "./rate-limiter.ts";
import { authentication } from "./authentication.ts";
import { authRoutes } from "./routes.ts";
import { userRoutes } from "./user-routes.ts";
import { apiKeyRoutes } from "./api-key-routes.ts";
import { Notifications } from "../notifications/service.ts";
import { notificationRoutes } from "../notifications/routes.ts";
import { billingFeatures } from "../billing/feature.ts";
import { OidcClient } from "./oidc-client.ts";
import { OidcSocialLogin } from "./social-login.ts";

export type AccountsModule = { accounts: Accounts; authenticated: AnyElysia; routes: AnyElysia[] };

/** Wires the accounts capability: its service, the authentication other features use, limits and routes. */
export function accountsModule(config: Config, adapters: Adapters, waitFor: WaitForProjections): AccountsModule {
  const accounts = new Accounts(adapters.eventStore, adapters.documents, waitFor);
  const authenticated = authentication(accounts, new RateLimiter(adapters.documents, config.rateLimitPerMinute));
  const loginLimiter = new RateLimiter(adapters.documents, config.loginAttemptsPerMinute);
  const socialLogin = config.idp ? new OidcSocialLogin(accounts, adapters.eventStore, new OidcClient(config.idp)) : null;
  const routes = [
    authRoutes({ accounts, loginLimiter, registrationLimiter: new RateLimiter(adapters.documents, config.registrationsPerMinute), socialLogin, authenticated }),
    userRoutes({ accounts, db: adapters.documents, blobs: adapters.blobs, publicUrl: config.publicUrl, authenticated }),
    apiKeyRoutes({ accounts, authenticated }),
    // Notifications and checkout share the account's authentication plugin, so they are wired here.
    notificationRoutes({ notifications: new Notifications(adapters.eventStore, adapters.documents, waitFor), authenticated }),
    ...billingFeatures(config, adapters, accounts, authenticated),
  ];
  return { accounts, authenticated, routes };
}
