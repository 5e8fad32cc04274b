import type { AnyElysia } from "elysia";
import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { Consumer } from "./bus/port.ts";
import { createHttpApp } from "./http/app.ts";
import { ProjectionRunner } from "../projections/runner.ts";
import { allProjections } from "../projections/index.ts";
import { Checkpoints } from "../projections/checkpoints.ts";
import { startRelay, type Relay } from "../workers/relay.ts";
import { startWorker } from "../workers/worker.ts";
import { createWorkers } from "../workers/index.ts";
import { startMonthlyAllowanceJob } from "../workers/monthly-allowance.ts";
import { startStuckTaskSweeper } from "../workers/stuck-tasks.ts";
import type { Worker } from "../workers/worker.ts";
import { startUploadCleanupJob } from "../workers/upload-cleanup.ts";
import { Uploads } from "./uploads/service.ts";
import { Tasks } from "./tasks/service.ts";
import { storageRoutes } from "./blobs/storage-routes.ts";
import { accountsModule } from "./accounts/feature.ts";
import { taskFeatures } from "./tasks/feature.ts";
import { waitForCheckpoints, type WaitForProjections } from "../projections/wait.ts";

export type Service = {
  /** The HTTP app (null when the api role is off). */
  app: AnyElysia | null;
  projections: ProjectionRunner | null;
  /** Resolves once read models reflect the log up to a position: read-your-writes for the API. */
  waitForProjections: WaitForProjections;
  stop(): Promise<void>;
};

/**
 * Starts the roles this process plays. Order matters: workers subscribe before the relay publishes,
 * so the in-process bus never publishes into the void.
 */
export async function startService(config: Config, adapters: Adapters): Promise<Service> {
  const roles = new Set(config.roles);
  const checkpoints = new Checkpoints(adapters.documents);
  let projections: ProjectionRunner | null = null;
  const consumers: Consumer[] = [];
  let relay: Relay | null = null;
  let monthlyAllowance: { stop(): void } | null = null;
  let stuckTasks: { stop(): void } | null = null;
  let workers: Worker[] = [];
  let uploadCleanup: { stop(): void } | null = null;

  if (roles.has("projections")) {
    projections = new ProjectionRunner(adapters.eventStore, adapters.documents, allProjections);
    await projections.start();
  }
  const waitForProjections: WaitForProjections = projections
    ? (position, names) => projections!.waitFor(position, names ?? null)
    : waitForCheckpoints(checkpoints, allProjections.map((p) => p.name));

  if (roles.has("workers")) {
    workers = createWorkers({ eventStore: adapters.eventStore, blobs: adapters.blobs, transcripts: adapters.transcripts, mediaFetch: config.mediaFetch, transcription: config.transcription });
    for (const worker of workers) {
      consumers.push(await startWorker(adapters.bus, adapters.eventStore, worker, config.workerConcurrency));
    }
    relay = await startRelay({ store: adapters.eventStore, bus: adapters.bus, checkpoints });
    monthlyAllowance = startMonthlyAllowanceJob(adapters.eventStore, adapters.documents);
    stuckTasks = startStuckTaskSweeper(adapters.eventStore, adapters.documents, config.transcription.scribingDeadlineSeconds);
    const uploads = new Uploads(adapters.eventStore, adapters.blobs, new Tasks(adapters.eventStore, adapters.documents, waitForProjections, adapters.transcripts));
    uploadCleanup = startUploadCleanupJob(uploads, adapters.documents, adapters.fileBlobs);
    relay.done.catch((error: unknown) => {
      // The relay stopped before a bus failure: exit so the supervisor restarts us from the checkpoint.
      console.error("relay failed:", error);
      process.exitCode = 1;
      process.kill(process.pid, "SIGTERM");
    });
  }

  let app: AnyElysia | null = null;
  if (roles.has("api")) {
    const features: AnyElysia[] = [];
    if (adapters.fileBlobs) features.push(storageRoutes(adapters.fileBlobs));
    const accounts = accountsModule(config, adapters, waitForProjections);
    features.push(...accounts.routes, ...taskFeatures(config, adapters, waitForProjections, accounts.authenticated));
    app = createHttpApp(features);
  }

  return {
    app,
    projections,
    waitForProjections,
    async stop() {
      monthlyAllowance?.stop();
      stuckTasks?.stop();
      for (const worker of workers) worker.abort?.(); // long transcriptions give their message back
      uploadCleanup?.stop();
      await relay?.stop();
      for (const consumer of consumers) await consumer.stop();
      await projections?.stop();
    },
  };
}
