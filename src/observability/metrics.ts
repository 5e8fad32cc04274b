import { Counter, Histogram, Registry, collectDefaultMetrics } from "prom-client";
import type { RequestObserver } from "../http/request-observer.ts";
import { jobOutcomes, type JobObserver } from "../core/worker.ts";
import type { AppendObserver } from "../core/append-observers.ts";
import { foreignEventsSkipped } from "../core/foreign-events.ts";

/** Seconds: from a cached read (~1 ms) to a large upload's part (tens of seconds). */
const requestBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Processing time ÷ media time: below 1 is faster than real time. */
const realtimeFactorBuckets = [0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10];

/**
 * One process's metrics, on a registry of its own (the process's defaults included), so that two services
 * in one test process never share or collide. What changes with traffic is counted as it happens; what
 * describes the system's state (tasks, queues, lag) is read when scraped (state-gauges.ts).
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });
  private readonly httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by method, route template and status.",
    labelNames: ["method", "route", "status"] as const,
    buckets: requestBuckets,
    registers: [this.registry],
  });
  private readonly workerJobs = new Counter({
    name: "scribe_worker_jobs_total",
    help: "Deliveries handled by this process's workers: done (acknowledged), failed (to be delivered again) or skipped.",
    labelNames: ["worker", "outcome"] as const,
    registers: [this.registry],
  });
  private readonly realtimeFactor = new Histogram({
    name: "scribe_transcription_realtime_factor",
    help: "A transcription's processing time divided by its media's duration (below 1: faster than real time).",
    buckets: realtimeFactorBuckets,
    registers: [this.registry],
  });
  private readonly eventsAppended = new Counter({
    name: "scribe_events_appended_total",
    help: "Events this process appended to the event store, by type.",
    labelNames: ["type"] as const,
    registers: [this.registry],
  });

  // Counted where the event store skips them (src/core/foreign-events.ts); read when scraped.
  private readonly foreignEvents = new Counter({
    name: "scribe_foreign_events_skipped_total",
    help: "Events in the log this application cannot read (another application's, not JSON), skipped by the relay and projections.",
    registers: [this.registry],
    collect() {
      this.reset();
      this.inc(foreignEventsSkipped());
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
    // Gauges named like counters, which promtool's lint refuses; nodejs_active_handles and friends say the same by type.
    for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) this.registry.removeSingleMetric(name);
  }

  /** Starts each worker's counts at 0, so a rate over them is defined before the first delivery. */
  expectWorkers(names: readonly string[]): void {
    for (const worker of names) for (const outcome of jobOutcomes) this.workerJobs.inc({ worker, outcome }, 0);
  }

  readonly observeRequest: RequestObserver = ({ method, route, status, durationSeconds }) => {
    const labels = { method, route, status: String(status) };
    this.httpRequests.inc(labels);
    this.httpDuration.observe(labels, durationSeconds);
  };

  readonly observeJob: JobObserver = ({ worker, outcome }) => {
    this.workerJobs.inc({ worker, outcome });
  };

  readonly observeAppend: AppendObserver = (events) => {
    for (const event of events) this.eventsAppended.inc({ type: event.type });
  };

  /** A finished transcription: `processingMs` of work for `mediaMs` of audio or video. */
  observeTranscription(processingMs: number, mediaMs: number): void {
    if (mediaMs > 0) this.realtimeFactor.observe(processingMs / mediaMs);
  }

  /** The exposition text, in Prometheus' text format. */
  text(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
