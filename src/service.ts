import { dependenciesOf, storeDependencies, type ProjectionsState } from "./readiness.ts";
import { checkDependencies } from "./health/readiness.ts";
import { readyRoutes } from "./health/ready-routes.ts";
import { openApiOptions } from "./openapi.ts";
import type { AnyElysia } from "elysia";
import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { Consumer } from "./bus/port.ts";
import { createHttpApp } from "./http/app.ts";
import { createOperationsApp } from "./http/operations-app.ts";
import { instrumentService } from "./service-metrics.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { allProjections } from "../projections/index.ts";
import { Checkpoints } from "../projections/checkpoints.ts";
import { startRelay } from "../workers/relay.ts";
import { Semaphore } from "./core/semaphore.ts";
import { Leases, holdLeadership, type LeasedWork, type Leadership } from "./core/lease.ts";
import { startWorker } from "../workers/worker.ts";
import type { RequestObserver } from "./http/request-observer.ts";
import { requestLog } from "./http/request-log.ts";
import { jobLog } from "../workers/job-log.ts";
import { logger } from "./logging/logger.ts";
import { createDeadLetterRecorder, createWorkers } from "../workers/index.ts";
import { startMonthlyAllowanceJob } from "./billing/index.ts";
import { startStuckTaskSweeper, sweepTemporaryMedia, transcriptionTempRoot } from "./transcription/index.ts";
import type { JobObserver, Worker } from "./core/worker.ts";
import { startUploadCleanupJob, Uploads } from "./uploads/index.ts";
import { startWebhookRetryJob, WebhookDelivery } from "./webhooks/index.ts";
import { startPeriodicJob } from "./core/periodic-job.ts";
import { IdempotencyKeys } from "./http/idempotency-store.ts";
import { startIdempotencyCleanupJob } from "./http/idempotency-cleanup-job.ts";
import { Tasks } from "./tasks/index.ts";
import { storageRoutes } from "./blobs/storage-routes.ts";
import { accountsModule, taskFeatures, webFeatures } from "./features.ts";
import { waitForCheckpoints } from "../projections/wait.ts";
import type { WaitForProjections } from "./core/projection.ts";

export type Service = {
  /** The HTTP app: the API with the api role, else health, readiness and metrics alone. */
  app: AnyElysia;
  projections: ProjectionRunner | null;
  /** Resolves once read models reflect the log up to a position: read-your-writes for the API. */
  waitForProjections: WaitForProjections;
  stop(): Promise<void>;
};

/**
 * Starts the roles this process plays. Order matters: workers subscribe before the relay publishes,
 * so the in-process bus never publishes into the void.
 */
/** `now`: the accounts' clock (tokens' and sessions' lifetimes), for tests that let time pass. */
export async function startService(config: Config, adapters: Adapters, options: { now?: () => Date } = {}): Promise<Service> {
  const roles = new Set(config.roles);
  const checkpoints = new Checkpoints(adapters.documents);
  let projections: ProjectionRunner | null = null;
  const consumers: Consumer[] = [];
  let monthlyAllowance: { stop(): void } | null = null;
  let stuckTasks: { stop(): void } | null = null;
  let workers: Worker[] = [];
  let uploadCleanup: { stop(): void } | null = null;
  let webhookRetries: { stop(): void } | null = null;
  let tempSweep: { stop(): void } | null = null;
  let idempotencyCleanup: { stop(): void } | null = null;

  const leases = new Leases(adapters.documents);
  // What is told about each answered request and each worker's delivery: logs and metrics.
  const requestObservers: RequestObserver[] = [requestLog()];
  const jobObservers: JobObserver[] = [jobLog()];
  // Shared by the API's large bodies and the workers' large summaries: in the embedded profile they take memory from one process.
  const heavyWork = new Semaphore(config.heavyWorkAtOnce);
  const leaderships: Leadership[] = [];
  let projectionsLeadership: Leadership | null = null;
  const lease = (name: string, start: () => Promise<LeasedWork>) => {
    const leadership = holdLeadership(leases, name, start, { ttlMs: config.leaseTtlMs });
    leaderships.push(leadership);
    return leadership;
  };

  const fromCheckpoints = waitForCheckpoints(
    checkpoints,
    allProjections.map((p) => p.name),
  );
  let waitForProjections: WaitForProjections = fromCheckpoints;
  if (roles.has("projections")) {
    // One writer for the read models among all the processes that run this role: the lease holder.
    const leadership: Leadership = (projectionsLeadership = lease("projections", async () => {
      await runner.start();
      return runner;
    }));
    const runner = new ProjectionRunner(adapters.eventStore, adapters.documents, allProjections, leadership, {
      transcripts: adapters.transcripts,
    });
    projections = runner;
    // The first process takes the lease at once; wait for that, so its first requests read its own writes.
    for (let i = 0; i < 100 && !runner.active && (await leases.holderOf("projections")) === null; i++) await Bun.sleep(10);
    waitForProjections = (position, names) => (runner.active ? runner.waitFor(position, names ?? null) : fromCheckpoints(position, names));
  }

  if (roles.has("workers")) {
    const uploads = new Uploads(
      adapters.eventStore,
      adapters.blobs,
      new Tasks(adapters.eventStore, adapters.documents, waitForProjections, adapters.transcripts),
    );
    workers = createWorkers({
      uploads,
      eventStore: adapters.eventStore,
      blobs: adapters.blobs,
      transcripts: adapters.transcripts,
      mediaFetch: config.mediaFetch,
      documents: adapters.documents,
      webhooks: config.webhooks,
      transcription: config.transcription,
      heavyWork,
    });
    // After a failure a worker asks its stores: one that does not answer makes it an outage to wait out, not the message's fault.
    const stores = storeDependencies(adapters);
    const dependenciesDown = async () => (await checkDependencies(stores)).filter((report) => !report.ok).map((report) => report.name);
    const deadLetters = createDeadLetterRecorder(adapters);
    for (const worker of workers) {
      consumers.push(await startWorker(adapters.bus, adapters.eventStore, worker, config.workerConcurrency, jobObservers, dependenciesDown, deadLetters));
    }
    // One relay among all the worker processes: the lease holder publishes, the others stand by.
    const relayLeadership: Leadership = lease("relay", async () => {
      // A relay that fails (its checkpoint fenced, the store unreadable) is started again from its checkpoint by the leadership;
      // a bus that refuses events (a full stream) is waited out inside it.
      return startRelay({
        store: adapters.eventStore,
        bus: adapters.bus,
        checkpoints: checkpoints.fencedBy(relayLeadership),
        mayPublish: () => relayLeadership.isHeld(),
      });
    });
    monthlyAllowance = startMonthlyAllowanceJob(adapters.eventStore, adapters.documents);
    stuckTasks = startStuckTaskSweeper(adapters.eventStore, adapters.documents, config.transcription.scribingDeadlineSeconds);
    uploadCleanup = startUploadCleanupJob(uploads, adapters.documents, adapters.blobs);
    webhookRetries = startWebhookRetryJob(new WebhookDelivery(adapters.eventStore, adapters.documents, config.webhooks), adapters.documents);
    // Per host, not leased: each worker process clears what dead processes of its host left in the temp folder.
    tempSweep = startPeriodicJob(
      "temporary media sweep",
      async () => {
        const removed = await sweepTemporaryMedia(transcriptionTempRoot(config.transcription.tempDir));
        if (removed.length > 0) logger("transcription").warn({ removed }, "temporary media sweep: removed what dead processes left");
      },
      { everyMs: 10 * 60_000, firstAfterMs: 1 },
    );
  }

  const metrics = instrumentService(config, adapters, { requestObservers, jobObservers, workers: () => workers, projections: () => projections, checkpoints });
  // Every role answers health, readiness and metrics on its port; the api role serves the API beside them.
  const [runnerHere, writerLease] = [projections as ProjectionRunner | null, projectionsLeadership as Leadership | null];
  const projectionsState: ProjectionsState | undefined =
    runnerHere && writerLease
      ? { writerHere: () => writerLease.isHeld(), notRunning: () => runnerHere.notRunning(), holder: () => leases.holderOf("projections") }
      : undefined;
  const operations: AnyElysia[] = [readyRoutes(dependenciesOf(config, adapters, roles, projectionsState))];
  if (metrics) operations.push(metrics.routes);
  let app: AnyElysia;
  if (!roles.has("api")) app = createOperationsApp(operations, requestObservers);
  else {
    const features: AnyElysia[] = [...operations];
    if (adapters.blobs.serveSignedRequest) features.push(storageRoutes(adapters.blobs.serveSignedRequest.bind(adapters.blobs)));
    const accounts = accountsModule(config, adapters, waitForProjections, options.now);
    // Before the first request: tokens issued before they had a lifetime count theirs from now (token-lifetimes.ts).
    await accounts.accounts.tokenLifetimes.start();
    const web = webFeatures(config, accounts);
    features.push(...accounts.routes, ...taskFeatures(config, adapters, waitForProjections, accounts.authenticated, web.page));
    const built = await web.ready;
    logger("web").info({ ms: built.ms, files: built.assets.size }, "web app built");
    features.push(web.routes);
    app = createHttpApp(features, {
      limits: config.requestLimits,
      heavyWork,
      openApi: openApiOptions(config),
      observers: requestObservers,
      beforeSizeRefusal: accounts.countRefusedBySize,
    });
    idempotencyCleanup = startIdempotencyCleanupJob(new IdempotencyKeys(adapters.documents), adapters.documents);
  }

  return {
    app,
    projections,
    waitForProjections,
    async stop() {
      metrics?.stop();
      monthlyAllowance?.stop();
      stuckTasks?.stop();
      for (const worker of workers) worker.abort?.(); // long transcriptions give their message back
      uploadCleanup?.stop();
      webhookRetries?.stop();
      tempSweep?.stop();
      idempotencyCleanup?.stop();
      for (const leadership of leaderships) await leadership.stop(); // the relay and the projection writer, when held here
      for (const consumer of consumers) await consumer.stop();
    },
  };
}
