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
import { withAnswerWaits } from "../projections/answer-waits.ts";
import type { Worker } from "./core/worker.ts";
import { serviceParts } from "./capability-parts.ts";
import { serviceContext } from "./service-context.ts";
import { startApiRole, startProjectionsRole, startWorkersRole } from "./service-roles.ts";
import { logger } from "./logging/logger.ts";

const log = logger("scribe");

export type Service = {
  /** The HTTP app: the API with the api role, else health, readiness and metrics alone. */
  app: AnyElysia;
  projections: ProjectionRunner | null;
  /** Resolves once read models reflect the log up to a position: read-your-writes for the API. */
  waitForProjections: WaitForProjections;
  /**
   * Ends what holds clients' connections open (live sessions, each kept as a task), within the time each allows itself:
   * the first step of `stop`, which the composition root takes on its own before it waits for the requests in flight.
   */
  closeConnections(): Promise<void>;
  /** Stops the roles, once (later calls wait for the first). */
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
  const connectionClosers: (() => Promise<void>)[] = [];
  const waits = { full: waitForProjections, answer: withAnswerWaits(waitForProjections, allProjections) };
  const parts = await serviceParts(config, adapters, waits, context.heavyWork, (end) => connectionClosers.push(end));
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
  const app = roles.has("api")
    ? await startApiRole(context, parts, operations, options.now)
    : createOperationsApp(operations, context.requestObservers, { compression: config.compression });

  let connectionsClosed: Promise<void> | null = null;
  const closeConnections = () => (connectionsClosed ??= closeAll(connectionClosers));
  let stopped: Promise<void> | null = null;
  const stopRoles = async () => {
    // First, while the stores, the projections and the workers still run: a live session ending becomes a task.
    await closeConnections();
    metrics?.stop();
    for (const job of context.jobs) job.stop();
    for (const worker of workers) worker.abort?.(); // long transcriptions give their message back
    for (const leadership of context.leaderships) await leadership.stop(); // the relay and the projection writer, when held here
    for (const consumer of context.consumers) await consumer.stop();
  };
  return { app, projections: runner, waitForProjections, closeConnections, stop: () => (stopped ??= stopRoles()) };
}

/** Runs every closer; one that fails is logged, so that the stop goes on. */
async function closeAll(closers: (() => Promise<void>)[]): Promise<void> {
  const outcomes = await Promise.allSettled(closers.map((close) => close()));
  for (const outcome of outcomes) if (outcome.status === "rejected") log.error({ err: outcome.reason }, "closing connections at the stop failed");
}
