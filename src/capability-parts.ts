import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { Capability } from "./core/capability.ts";
import type { WaitForProjections } from "./core/projection.ts";
import type { Semaphore } from "./core/semaphore.ts";
import type { Idempotency } from "./http/idempotency.ts";
import type { OriginOf } from "./http/request-origin.ts";
import type { OwnSite } from "./http/cross-site.ts";
import type { Accounts, Authenticated, QueueOf, RetentionSetting, SignInLimits, SocialLogin } from "./accounts/index.ts";
import type { FolderTaskCounts } from "./folders/service.ts";
import { deriveKey } from "./billing/index.ts";
import { recognitionOfferOf } from "./transcription/recognition-offer.ts";
import { tasksService, type AppPage, type Tasks } from "./tasks/index.ts";
import { capabilities } from "./capabilities/index.ts";

/**
 * What every capability's routes, workers and jobs may be built from, built once per process by the composition
 * root: the configuration, the adapters, read-your-writes, the heavy-work slots, and the tasks, whose commands the
 * other capabilities call.
 */
export type ServiceParts = {
  config: Config;
  adapters: Adapters;
  waitForProjections: WaitForProjections;
  heavyWork: Semaphore;
  tasks: Tasks;
  /** A key derived from the service's secret for one use (SIGNING_SECRET, shared by every replica), named by its label. */
  keyFor(label: string): string;
  /**
   * Registers what the service's stop ends first, before its roles stop: what holds clients' connections open (a live
   * session's WebSocket), which the HTTP server's own stop would wait on for as long as the client likes. Each bounds
   * its own time.
   */
  onStop(end: () => Promise<void>): void;
};

/** The accounts and their authentication, which every capability's routes use: built before any of them. */
export type AccountsParts = {
  accounts: Accounts;
  authenticated: Authenticated;
  signInLimits: SignInLimits;
  socialLogin: SocialLogin | null;
  site: OwnSite;
};

/**
 * What the api role adds for routes: the accounts', one Idempotency-Key store, the caller's address, and what the
 * tasks' read models tell the capabilities below tasks (which may not import it).
 */
export type ApiParts = ServiceParts &
  AccountsParts & {
    idempotency: Idempotency;
    originOf: OriginOf;
    appPage?: AppPage;
    queueOf: QueueOf;
    folderTaskCounts: FolderTaskCounts;
    /** The account's retention, which GET and PUT /api/user show and set (the retention capability's, above accounts). */
    retention: RetentionSetting;
  };

/** The list of capabilities as the composition root wires it: this fails to compile when a capability needs a part the root does not build. */
export const wiredCapabilities: readonly Capability<ApiParts, ServiceParts>[] = capabilities;

export async function serviceParts(
  config: Config,
  adapters: Adapters,
  /** `full`: until every read model shows a write; `answer`: what a new transcript's answer waits for (projections/answer-waits.ts). */
  waits: { full: WaitForProjections; answer: WaitForProjections },
  heavyWork: Semaphore,
  onStop: ServiceParts["onStop"],
): Promise<ServiceParts> {
  const offer = recognitionOfferOf(config.transcription);
  const tasks = await tasksService(adapters.eventStore, adapters.documents, waits.full, adapters.transcripts, undefined, offer, waits.answer);
  return { config, adapters, waitForProjections: waits.full, heavyWork, tasks, keyFor: (label) => deriveKey(adapters.secret, label), onStop };
}
