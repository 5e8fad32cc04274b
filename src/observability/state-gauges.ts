import { Gauge, type Registry } from "prom-client";

/** Where the gauges that describe the system's state read it, each when Prometheus scrapes. */
export type StateSources = {
  tasksByStatus(): Promise<Record<string, number>>;
  /** The workers whose queues this process can see (its own durables); none outside the workers role. */
  queueDepths(): Promise<{ worker: string; depth: number }[]>;
  projectionLags(): Promise<{ projection: string; events: number; seconds: number }[]>;
  /** Dead letters waiting for the operator (from the dead_letters read model). */
  deadLettersOpen?(): Promise<number>;
};

/**
 * A gauge set at scrape time. A source that fails (its store is down) leaves the gauge empty for that scrape
 * instead of failing the whole exposition: `/api/ready` is what says a dependency is down.
 */
function gauge<L extends string>(registry: Registry, name: string, help: string, labelNames: readonly L[], fill: (gauge: Gauge<L>) => Promise<void>) {
  return new Gauge<L>({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      this.reset();
      await fill(this).catch(() => this.reset());
    },
  });
}

export function registerStateGauges(registry: Registry, sources: StateSources): void {
  gauge(registry, "scribe_tasks", "Tasks by status, all users (from the tasks read model).", ["status"], async (g) => {
    for (const [status, count] of Object.entries(await sources.tasksByStatus())) g.set({ status }, count);
  });
  gauge(registry, "scribe_queue_depth", "Messages a worker has yet to finish: waiting, plus delivered and not acknowledged.", ["worker"], async (g) => {
    for (const { worker, depth } of await sources.queueDepths()) g.set({ worker }, depth);
  });
  // Both lag gauges come from one reading of the log per scrape.
  let lags: ReturnType<StateSources["projectionLags"]> | null = null;
  const lagsOnce = () => (lags ??= sources.projectionLags().finally(() => setTimeout(() => (lags = null), 0)));
  gauge(registry, "scribe_projection_lag_events", "Events in the log a projection has not folded yet (counted up to 10,000).", ["projection"], async (g) => {
    for (const { projection, events } of await lagsOnce()) g.set({ projection }, events);
  });
  gauge(registry, "scribe_projection_lag_seconds", "Age of the oldest event a projection has not folded yet (0 when current).", ["projection"], async (g) => {
    for (const { projection, seconds } of await lagsOnce()) g.set({ projection }, seconds);
  });
  const { deadLettersOpen } = sources;
  if (deadLettersOpen)
    gauge(
      registry,
      "scribe_dead_letters_open",
      "Messages no worker could handle, set aside for the operator and not yet retried or dropped.",
      [],
      async (g) => {
        g.set(await deadLettersOpen());
      },
    );
}
