/**
 * Live transcription: OpenAI's Realtime API for transcription sessions at `GET /v1/realtime` (routes.ts), each session
 * kept as a task of its account (live-task.ts). Its read of the world is the accounts' credentials and balance, and the
 * tasks capability's commands; it has no read models or workers of its own.
 */
import type { Capability } from "../core/capability.ts";
import type { Accounts } from "../accounts/service.ts";
import type { OwnSite } from "../http/cross-site.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptionConfig } from "../transcription/config.ts";
import { liveSettings, type LiveConfig } from "./settings.ts";

export { liveMetrics, liveObservers } from "./metrics.ts";
export type { LiveConfig } from "./settings.ts";

type LiveApiParts = {
  adapters: { documents: DocumentStore; blobs: BlobStore };
  config: { live: LiveConfig; transcription: TranscriptionConfig; rateLimitPerMinute: number; sessionRateLimitPerMinute: number };
  tasks: Tasks;
  accounts: Accounts;
  site: OwnSite;
  onStop(end: () => Promise<void>): void;
};

type LiveWorkParts = { adapters: { documents: DocumentStore; blobs: BlobStore } };

export const capability: Capability<LiveApiParts, LiveWorkParts, typeof liveSettings> = {
  name: "live",
  settings: liveSettings,
  projections: [],
  routes: async ({ adapters, config, tasks, accounts, site, onStop }) => {
    const [{ realtimeRoutes }, { OpenSessions }, { LiveAdmission }, { LiveSessionSlots }, { RateLimiter }, { remainingBalanceSeconds }, { sessionServices }] =
      await Promise.all([
        import("./routes.ts"),
        import("./open-sessions.ts"),
        import("./realtime-admission.ts"),
        import("./session-slots.ts"),
        import("../accounts/rate-limiter.ts"),
        import("./session-balance.ts"),
        import("./session-services.ts"),
      ]);
    const { documents, blobs } = adapters;
    const { live } = config;
    const slots = new LiveSessionSlots(documents, live.sessionsPerAccount);
    const admission = new LiveAdmission(slots, live, (userId) => remainingBalanceSeconds(documents, userId));
    // The same counters as the authentication plugin's (one document per credential and minute, shared by every limiter on the store).
    const auth = {
      accounts,
      site,
      tokens: new RateLimiter(documents, config.rateLimitPerMinute),
      sessions: new RateLimiter(documents, config.sessionRateLimitPerMinute),
    };
    const services = sessionServices({ documents, blobs, tasks, transcription: config.transcription, live });
    const sessions = new OpenSessions();
    // At the service's stop: every open session ends as a task, then the engines are released (not while a session
    // cut short by the grace may still be decoding with them: the process is about to exit and frees them anyway).
    onStop(async () => {
      if (await sessions.stop()) await services.closeEngines();
    });
    return [realtimeRoutes({ auth, admission, services, sessions })];
  },
  jobs: async ({ adapters }) => {
    const { startUnkeptRecordingsJob } = await import("./unkept-recordings.ts");
    return [startUnkeptRecordingsJob(adapters.documents, adapters.blobs)];
  },
};
