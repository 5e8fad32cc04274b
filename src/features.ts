import type { AnyElysia } from "elysia";
import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { WaitForProjections } from "./core/projection.ts";
import { accountsServices, type OidcClient } from "./accounts/index.ts";
import { ownSite } from "./http/cross-site.ts";
import { folderTaskCounts, queueCounts } from "./tasks/index.ts";
import { idempotency } from "./http/idempotency.ts";
import { Retention } from "./retention/index.ts";
import type { IdempotencyKeys } from "./http/idempotency-store.ts";
import { webApp, type WebApp } from "./web/index.ts";
import { clientAddresses, requestOrigins, type RequestContext } from "./http/request-origin.ts";
import { wiredCapabilities, type AccountsParts, type ApiParts, type ServiceParts } from "./capability-parts.ts";

/**
 * The API's half of the composition root: the accounts and their authentication, which every capability's routes
 * use, then each capability's routes from its manifest (src/capabilities). Capabilities never import each other's
 * wiring, only this file and the manifests do.
 */

export type AccountsModule = AccountsParts & {
  /** The configured identity provider (IDP_ISSUER), whose login the web app starts; null without one. */
  idp: OidcClient | null;
  /** Counts a sign-in refused for its size before its route's own throttle could (sign-in-rules.ts). */
  countRefusedBySize: (context: RequestContext, path: string) => Promise<void>;
};

/** Accounts, the authentication every other feature uses, and the limits of signing in. */
export async function accountsModule(config: Config, adapters: Adapters, waitFor: WaitForProjections, now?: () => Date): Promise<AccountsModule> {
  const { Accounts, RateLimiter, authentication, OidcClient, OidcSocialLogin, SignInLimits } = await accountsServices();
  const { sessionLifetimeMs, tokenLifetimeMs } = config;
  const accounts = new Accounts(adapters.eventStore, adapters.documents, waitFor, { sessionLifetimeMs, tokenLifetimeMs, now });
  // The web app's session cookie is checked against the address each request came to (and PUBLIC_URL).
  const site = ownSite(requestOrigins(config), config.publicUrl);
  const authenticated = authentication(accounts, {
    tokens: new RateLimiter(adapters.documents, config.rateLimitPerMinute),
    sessions: new RateLimiter(adapters.documents, config.sessionRateLimitPerMinute),
    site,
  });
  const signInLimits = new SignInLimits(
    new RateLimiter(adapters.documents, config.loginAttemptsPerMinute),
    new RateLimiter(adapters.documents, config.registrationsPerMinute),
    clientAddresses(config.trustedProxies),
  );
  const idp = config.idp ? new OidcClient(config.idp) : null;
  const socialLogin = idp ? new OidcSocialLogin(accounts, adapters.eventStore, idp) : null;
  return { accounts, authenticated, signInLimits, socialLogin, site, idp, countRefusedBySize: signInLimits.refusedBySize };
}

/** The browser app (src/web): it uses the API like any client; only the start of the IdP's login is served for it. */
export function webFeatures(config: Config, { idp }: Pick<AccountsModule, "idp">): WebApp {
  return webApp({ idp: idp ? (state, loginHint) => idp.authorizationUrl(state, loginHint) : null, storageOrigins: uploadOrigins(config) });
}

/**
 * Where the browser sends upload parts besides the API's own origin: S3's, whose presigned URLs name the public
 * endpoint with the bucket in the path, or in the host name when S3_FORCE_PATH_STYLE=false.
 */
function uploadOrigins(config: Config): string[] {
  if (!config.s3) return [];
  const endpoint = new URL(config.s3.publicEndpoint ?? config.s3.endpoint);
  return [config.s3.forcePathStyle ? endpoint.origin : `${endpoint.protocol}//${config.s3.bucket}.${endpoint.host}`];
}

/** What the capabilities' routes are built from: the service's parts, the accounts', and what only requests need. */
export function apiParts(service: ServiceParts, accounts: AccountsParts, idempotencyKeys: IdempotencyKeys, appPage?: ApiParts["appPage"]): ApiParts {
  const { documents } = service.adapters;
  const { accounts: accountsService, authenticated, signInLimits, socialLogin, site } = accounts;
  return {
    ...service,
    accounts: accountsService,
    authenticated,
    signInLimits,
    socialLogin,
    site,
    // One Idempotency-Key store for the routes that take the header (a route opts in with `idempotent: true`).
    idempotency: idempotency(idempotencyKeys),
    // URLs a caller uses at once (parts, downloads, audio) name the address it reached us at; links that leave, PUBLIC_URL.
    originOf: requestOrigins(service.config),
    appPage,
    queueOf: (userId) => queueCounts(documents, userId),
    folderTaskCounts: (userId) => folderTaskCounts(documents, userId),
    retention: new Retention(service.adapters.eventStore, documents, service.waitForProjections, service.config.retentionMaxDays),
  };
}

/** Every capability's routes, in the list's order. */
export async function capabilityRoutes(parts: ApiParts): Promise<AnyElysia[]> {
  const routes = await Promise.all(wiredCapabilities.map((capability) => capability.routes?.(parts) ?? []));
  return routes.flat();
}
