import { dependenciesOf, type ProjectionsState } from "./readiness.ts";
import { readyRoutes } from "./health/ready-routes.ts";
import type { AnyElysia } from "elysia";
import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import { createOperationsApp } from "./http/operations-app.ts";
import { instrumentService } from "./service-metrics.ts";
import type { ProjectionRunner } from "../projections/runner.ts";
import { allProjections } from "../projections/index.ts";
import { waitForCheckpoints } from "../projections/wait.ts";
import type { WaitForProjections } from "./core/projection.ts";
import type { Worker } from "./core/worker.ts";
import { serviceParts } from "./capability-parts.ts";
import { serviceContext } from "./service-context.ts";
import { startApiRole, startProjectionsRole, startWorkersRole } from "./service-roles.ts";

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
 * `now`: the accounts' clock (tokens' and sessions' lifetimes), for tests that let time pass.
 */
export async function startService(config: Config, adapters: Adapters, options: { now?: () => Date } = {}): Promise<Service> {
  const roles = new Set(config.roles);
  const context = serviceContext(config, adapters);
  const fromCheckpoints = waitForCheckpoints(
    context.checkpoints,
    allProjections.map((p) => p.name),
  );
  const projections = roles.has("projections") ? await startProjectionsRole(context, fromCheckpoints) : null;
  const waitForProjections = projections?.waitForProjections ?? fromCheckpoints;
  const parts = await serviceParts(config, adapters, waitForProjections, context.heavyWork);
  const workers: Worker[] = roles.has("workers") ? await startWorkersRole(context, parts) : [];

  const runner = projections?.runner ?? null;
  const metrics = instrumentService(config, adapters, {
    requestObservers: context.requestObservers,
    jobObservers: context.jobObservers,
    workers: () => workers,
    projections: () => runner,
    checkpoints: context.checkpoints,
  });
  // Every role answers health, readiness and metrics on its port; the api role serves the API beside them.
  const projectionsState: ProjectionsState | undefined = projections
    ? {
        writerHere: () => projections.leadership.isHeld(),
        notRunning: () => projections.runner.notRunning(),
        holder: () => context.leases.holderOf("projections"),
      }
    : undefined;
  const operations: AnyElysia[] = [readyRoutes(dependenciesOf(config, adapters, roles, projectionsState))];
  if (metrics) operations.push(metrics.routes);
  const app = roles.has("api") ? await startApiRole(context, parts, operations, options.now) : createOperationsApp(operations, context.requestObservers);

  return {
    app,
    projections: runner,
    waitForProjections,
    async stop() {
      metrics?.stop();
      for (const job of context.jobs) job.stop();
      for (const worker of workers) worker.abort?.(); // long transcriptions give their message back
      for (const leadership of context.leaderships) await leadership.stop(); // the relay and the projection writer, when held here
      for (const consumer of context.consumers) await consumer.stop();
    },
  };
}
