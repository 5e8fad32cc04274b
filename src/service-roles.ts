import type { AnyElysia } from "elysia";
import type { ServiceContext } from "./service-context.ts";
import type { Worker } from "./core/worker.ts";
import type { WaitForProjections } from "./core/projection.ts";
import type { Leadership } from "./core/lease.ts";
import { storeDependencies } from "./readiness.ts";
import { checkDependencies } from "./health/readiness.ts";
import { openApiOptions } from "./openapi.ts";
import { createHttpApp } from "./http/app.ts";
import { IdempotencyKeys } from "./http/idempotency-store.ts";
import { startIdempotencyCleanupJob } from "./http/idempotency-cleanup-job.ts";
import { storageRoutes } from "./blobs/storage-routes.ts";
import { logger } from "./logging/logger.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { allProjections } from "../projections/index.ts";
import { startRelay } from "../workers/relay.ts";
import { startWorker } from "../workers/worker.ts";
import { createDeadLetterRecorder, createWorkers } from "../workers/index.ts";
import { wiredCapabilities, type ServiceParts } from "./capability-parts.ts";
import { accountsModule, apiParts, capabilityRoutes, webFeatures } from "./features.ts";

/** The projections role as it runs here: the runner, the lease that makes it the writer, and read-your-writes through it. */
export type ProjectionsRole = { runner: ProjectionRunner; leadership: Leadership; waitForProjections: WaitForProjections };

/** The read models' writer: one among all the processes that run this role, the lease holder. */
export async function startProjectionsRole(context: ServiceContext, fromCheckpoints: WaitForProjections): Promise<ProjectionsRole> {
  const { adapters, leases } = context;
  const leadership: Leadership = context.lease("projections", async () => {
    await runner.start();
    return runner;
  });
  const runner = new ProjectionRunner(adapters.eventStore, adapters.documents, allProjections, leadership, { transcripts: adapters.transcripts });
  // The first process takes the lease at once; wait for that, so its first requests read its own writes.
  for (let i = 0; i < 100 && !runner.active && (await leases.holderOf("projections")) === null; i++) await Bun.sleep(10);
  const waitForProjections: WaitForProjections = (position, names, withinMs) =>
    runner.active ? runner.waitFor(position, names ?? null, withinMs ?? {}) : fromCheckpoints(position, names, withinMs);
  return { runner, leadership, waitForProjections };
}

/** Every capability's workers as durable consumers, the relay that feeds them (one among all the worker processes), and the timed jobs. */
export async function startWorkersRole(context: ServiceContext, parts: ServiceParts): Promise<Worker[]> {
  const { config, adapters, checkpoints } = context;
  const workers = await createWorkers(wiredCapabilities, parts);
  // After a failure a worker asks its stores: one that does not answer makes it an outage to wait out, not the message's fault.
  const stores = storeDependencies(adapters);
  const dependenciesDown = async () => (await checkDependencies(stores)).filter((report) => !report.ok).map((report) => report.name);
  const deadLetters = createDeadLetterRecorder(adapters);
  for (const worker of workers) {
    const consumer = await startWorker(
      adapters.bus,
      adapters.eventStore,
      worker,
      config.workerConcurrency,
      context.jobObservers,
      dependenciesDown,
      deadLetters,
    );
    context.consumers.push(consumer);
  }
  // The lease holder publishes, the others stand by.
  const relayLeadership: Leadership = context.lease("relay", async () => {
    // A relay that fails (its checkpoint fenced, the store unreadable) is started again from its checkpoint by the leadership;
    // a bus that refuses events (a full stream) is waited out inside it.
    return startRelay({
      store: adapters.eventStore,
      bus: adapters.bus,
      checkpoints: checkpoints.fencedBy(relayLeadership),
      mayPublish: () => relayLeadership.isHeld(),
    });
  });
  for (const capability of wiredCapabilities) context.jobs.push(...((await capability.jobs?.(parts)) ?? []));
  return workers;
}

/** The API beside health, readiness and metrics: the accounts first, then every capability's routes, then the web app. */
export async function startApiRole(context: ServiceContext, parts: ServiceParts, operations: AnyElysia[], now?: () => Date): Promise<AnyElysia> {
  const { config, adapters } = context;
  const features: AnyElysia[] = [...operations];
  if (adapters.blobs.serveSignedRequest) features.push(storageRoutes(adapters.blobs.serveSignedRequest.bind(adapters.blobs)));
  const accounts = await accountsModule(config, adapters, parts.waitForProjections, now);
  // Before the first request: tokens issued before they had a lifetime count theirs from now (token-lifetimes.ts).
  await accounts.accounts.tokenLifetimes.start();
  const web = webFeatures(config, accounts);
  const idempotencyKeys = new IdempotencyKeys(adapters.documents);
  features.push(...(await capabilityRoutes(apiParts(parts, accounts, idempotencyKeys, web.page))));
  const built = await web.ready;
  logger("web").info({ ms: built.ms, files: built.assets.size }, "web app built");
  features.push(web.routes);
  const app = createHttpApp(features, {
    limits: config.requestLimits,
    heavyWork: context.heavyWork,
    openApi: openApiOptions(config),
    observers: context.requestObservers,
    beforeSizeRefusal: accounts.countRefusedBySize,
    compression: config.compression,
  });
  context.jobs.push(startIdempotencyCleanupJob(idempotencyKeys, adapters.documents));
  return app;
}
