import type { Config } from "./config.ts";
import type { Adapters } from "./adapters.ts";
import type { RequestObserver } from "./http/request-observer.ts";
import type { JobObserver, Worker } from "./core/worker.ts";
import { ServiceMetrics } from "./observability/metrics.ts";
import { registerStateGauges } from "./observability/state-gauges.ts";
import { metricsRoutes } from "./observability/metrics-routes.ts";
import { tasksByStatus } from "./tasks/index.ts";
import { openDeadLetterCount } from "./dead-letters/index.ts";
import { liveMetrics, liveObservers } from "./live/index.ts";
import { pipelineObservers, type PipelineTimings } from "./transcription/timings.ts";
import { projectionLags } from "../projections/lag.ts";
import { checkpointId, type Checkpoints } from "../projections/checkpoints.ts";
import { allProjections } from "../projections/index.ts";
import type { ProjectionRunner } from "../projections/runner.ts";

/** What the metrics read from the roles this process plays; read at each scrape, so later changes show. */
export type MetricsParts = {
  requestObservers: RequestObserver[];
  jobObservers: JobObserver[];
  /** This process's workers (none outside the workers role), created before the metrics are attached. */
  workers: () => readonly Worker[];
  /** The projection runner when it writes here; otherwise lag is measured from the saved checkpoints. */
  projections: () => ProjectionRunner | null;
  checkpoints: Checkpoints;
};

/**
 * Attaches this process's metrics to what it does (requests, deliveries, appends, transcriptions) and returns
 * `GET /metrics`; null when METRICS=off, and then nothing is counted at all.
 */
export function instrumentService(config: Config, adapters: Adapters, parts: MetricsParts): { routes: ReturnType<typeof metricsRoutes>; stop(): void } | null {
  if (!config.metricsEnabled) return null;
  const metrics = new ServiceMetrics();
  metrics.expectWorkers(parts.workers().map((worker) => worker.name));
  parts.requestObservers.push(metrics.observeRequest);
  parts.jobObservers.push(metrics.observeJob);
  adapters.appendObservers.add(metrics.observeAppend);
  const transcribed = (timings: PipelineTimings) => metrics.observeTranscription(timings.totalMs, timings.mediaMs);
  pipelineObservers.add(transcribed);
  const live = liveMetrics(metrics.registry);
  liveObservers.add(live);

  registerStateGauges(metrics.registry, {
    tasksByStatus: () => tasksByStatus(adapters.documents),
    deadLettersOpen: () => openDeadLetterCount(adapters.documents),
    queueDepths: () => Promise.all(parts.workers().map(async ({ name }) => ({ worker: name, depth: await adapters.bus.queueDepth(name) }))),
    projectionLags: async () => {
      const runner = parts.projections();
      const positions = runner?.active
        ? runner.positions()
        : new Map(await Promise.all(allProjections.map(async ({ name }) => [name, await parts.checkpoints.load(checkpointId(name))] as const)));
      return projectionLags(adapters.eventStore, positions);
    },
  });
  return {
    routes: metricsRoutes(metrics, config.metricsToken),
    stop() {
      adapters.appendObservers.delete(metrics.observeAppend);
      pipelineObservers.delete(transcribed);
      liveObservers.delete(live);
    },
  };
}
