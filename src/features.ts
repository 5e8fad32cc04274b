import type { AnyElysia } from "elysia";
import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { WaitForProjections } from "./core/projection.ts";
import {
  Accounts,
  Profiles,
  RateLimiter,
  authentication,
  authRoutes,
  sessionRoutes,
  userRoutes,
  apiKeyRoutes,
  OidcClient,
  OidcSocialLogin,
} from "./accounts/index.ts";
import { ownSite } from "./http/cross-site.ts";
import { Notifications, notificationRoutes } from "./notifications/index.ts";
import { Checkout, deriveKey, PaymentWebhooks, SandboxProvider, billingRoutes, sandboxRoutes } from "./billing/index.ts";
import { Tasks, folderTaskCounts, queueCounts, taskRoutes, shareRoutes, historyRoutes, audioRoutes, type AppPage } from "./tasks/index.ts";
import { Folders, folderRoutes } from "./folders/index.ts";
import { Exports, exportRoutes } from "./exports/index.ts";
import { Uploads, uploadRoutes } from "./uploads/index.ts";
import { Search, searchRoutes } from "./search/index.ts";
import { createSummarizer, Summaries, transcriptionRoutes } from "./transcription/index.ts";
import { WebhookDelivery, Webhooks, webhookRoutes } from "./webhooks/index.ts";
import { idempotency, type Idempotency } from "./http/idempotency.ts";
import { IdempotencyKeys } from "./http/idempotency-store.ts";
import { OpenAiTranscriptions, openAiRoutes, servedLanguage, servedModels } from "./openai-compat/index.ts";
import { webApp, type WebApp } from "./web/index.ts";
import { clientAddresses, requestOrigins, type RequestContext } from "./http/request-origin.ts";
import { SignInLimits } from "./accounts/sign-in-rules.ts";

/**
 * The API's half of the composition root: each capability's services built from the adapters and
 * configuration, and their routes. Capabilities never import each other's wiring, only this file does.
 */

export type AccountsModule = {
  accounts: Accounts;
  authenticated: AnyElysia;
  routes: AnyElysia[];
  /** The configured identity provider (IDP_ISSUER), whose login the web app starts; null without one. */
  idp: OidcClient | null;
  /** Counts a sign-in refused for its size before its route's own throttle could (sign-in-rules.ts). */
  countRefusedBySize: (context: RequestContext, path: string) => Promise<void>;
};

/** Accounts, the authentication every other feature uses, limits and routes, with notifications and checkout. */
export function accountsModule(config: Config, adapters: Adapters, waitFor: WaitForProjections, now?: () => Date): AccountsModule {
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
  const routes = [
    authRoutes({ accounts, signInLimits, socialLogin, authenticated }),
    sessionRoutes({ accounts, signInLimits, socialLogin, authenticated, site }),
    userRoutes({
      accounts,
      profiles: new Profiles(accounts, adapters.eventStore, adapters.blobs),
      blobs: adapters.blobs,
      publicUrl: config.publicUrl,
      queueOf: (userId) => queueCounts(adapters.documents, userId),
      authenticated,
    }),
    apiKeyRoutes({ accounts, authenticated }),
    notificationRoutes({ notifications: new Notifications(adapters.eventStore, adapters.documents, waitFor), authenticated }),
    ...billingFeatures(config, adapters, accounts, authenticated),
  ];
  return { accounts, authenticated, routes, idp, countRefusedBySize: signInLimits.refusedBySize };
}

/** The browser app (src/web): it uses the API like any client; only the start of the IdP's login is served for it. */
export function webFeatures(config: Config, accounts: AccountsModule): WebApp {
  const { idp } = accounts;
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

/**
 * Checkout and payments. Both secrets derive from the service secret (shared by every API replica through
 * SIGNING_SECRET) unless PAYMENT_WEBHOOK_SECRET names the one a provider gave us.
 */
function billingFeatures(config: Config, adapters: Adapters, accounts: Accounts, authenticated: AnyElysia): AnyElysia[] {
  const webhookSecret = config.paymentWebhookSecret ?? deriveKey(adapters.secret, "payment-webhook");
  const sandbox = new SandboxProvider(config.publicUrl, webhookSecret);
  const checkout = new Checkout(deriveKey(adapters.secret, "checkout-reference"), sandbox);
  const webhooks = new PaymentWebhooks(webhookSecret, checkout, accounts);
  return [billingRoutes({ checkout, webhooks, authenticated, originOf: requestOrigins(config) }), sandboxRoutes({ checkout, sandbox, accounts })];
}

/**
 * Tasks, folders, exports, uploads, audio, the API side of transcription and OpenAI's transcription endpoint, behind the accounts' authentication.
 * `appPage`: the web app's page, which a browser opening a share link gets.
 */
export function taskFeatures(config: Config, adapters: Adapters, waitFor: WaitForProjections, authenticated: AnyElysia, appPage?: AppPage): AnyElysia[] {
  const tasks = new Tasks(adapters.eventStore, adapters.documents, waitFor, adapters.transcripts);
  const folders = new Folders(adapters.eventStore, adapters.documents, waitFor, (userId) => folderTaskCounts(adapters.documents, userId));
  const summaries = new Summaries(adapters.eventStore, tasks, createSummarizer(config.transcription), waitFor);
  // One Idempotency-Key store for the routes that take the header (a route opts in with `idempotent: true`).
  const idempotent = idempotency(new IdempotencyKeys(adapters.documents));
  // One key for the audio URLs of the owner and of the share page, whose MACs are labelled apart (src/tasks/audio-url.ts).
  const audioUrlKey = deriveKey(adapters.secret, "audio-url");
  // URLs a caller uses at once (parts, downloads, audio) name the address it reached us at; links that leave, PUBLIC_URL.
  const originOf = requestOrigins(config);
  return [
    taskRoutes({ tasks, authenticated, idempotency: idempotent }),
    shareRoutes({ tasks, db: adapters.documents, blobs: adapters.blobs, urlKey: audioUrlKey, publicUrl: config.publicUrl, originOf, authenticated, appPage }),
    historyRoutes({ tasks, db: adapters.documents, authenticated }),
    folderRoutes({ folders, authenticated, idempotency: idempotent }),
    exportRoutes({ exports: new Exports(adapters.eventStore, adapters.documents, adapters.blobs, tasks), authenticated, originOf }),
    uploadRoutes({ uploads: new Uploads(adapters.eventStore, adapters.blobs, tasks), authenticated, idempotency: idempotent, originOf }),
    audioRoutes({ tasks, blobs: adapters.blobs, authenticated, urlKey: audioUrlKey, originOf }),
    searchRoutes({ search: new Search(adapters.documents), authenticated }),
    transcriptionRoutes({ tasks, db: adapters.documents, blobs: adapters.blobs, summaries, authenticated }),
    webhookFeatures(config, adapters, waitFor, authenticated, idempotent),
    openAiRoutes({
      transcriptions: new OpenAiTranscriptions(tasks, adapters.blobs, config.openAiCompatWaitMs),
      models: servedModels(config.transcription),
      language: servedLanguage(config.transcription),
      waitSeconds: config.openAiCompatWaitMs / 1000,
      authenticated,
    }),
  ];
}

/** Webhook endpoints: registered and tested through the API; their messages are delivered by the workers role. */
function webhookFeatures(config: Config, adapters: Adapters, waitFor: WaitForProjections, authenticated: AnyElysia, idempotency: Idempotency): AnyElysia {
  const delivery = new WebhookDelivery(adapters.eventStore, adapters.documents, config.webhooks);
  const webhooks = new Webhooks(adapters.eventStore, adapters.documents, waitFor, delivery, config.webhooks);
  return webhookRoutes({ webhooks, authenticated, idempotency });
}
