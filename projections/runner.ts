import type { RecordedEvent } from "../src/core/event.ts";
import type { EventStore, Subscription } from "../src/eventstore/port.ts";
import type { DocumentStore } from "../src/readmodels/port.ts";
import { Checkpoints } from "./checkpoints.ts";
import type { Projection } from "./projection.ts";

const checkpointId = (name: string) => `projection:${name}`;

type Running = { projection: Projection; subscription: Subscription; processed: number; saveTimer: Timer | null };

/**
 * Runs each projection on its own checkpointed subscription to the log. Checkpoints are saved shortly
 * after the last event (coalesced under load); projections are idempotent, so the few events after a
 * saved checkpoint that arrive again after a crash change nothing.
 */
export class ProjectionRunner {
  private readonly running = new Map<string, Running>();
  private readonly checkpoints: Checkpoints;
  private waiters: { position: number; names: string[] | null; resolve: () => void }[] = [];

  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    readonly projections: readonly Projection[],
  ) {
    this.checkpoints = new Checkpoints(db);
  }

  async start(): Promise<void> {
    for (const projection of this.projections) {
      const id = checkpointId(projection.name);
      const version = projection.version ?? 1;
      const saved = await this.checkpoints.entry(id);
      let after = saved.position;
      if (after > 0 && saved.version !== version) {
        console.log(`projection ${projection.name}: its documents changed shape (version ${version}), rebuilding from the log`);
        await this.rebuild([projection.name]);
        after = await this.checkpoints.load(id);
      }
      await projection.setup?.(this.db);
      const running: Running = { projection, subscription: undefined as unknown as Subscription, processed: after, saveTimer: null };
      const types = new Set(projection.eventTypes);
      running.subscription = this.store.subscribe({ after }, async (event) => {
        if (types.has(event.type)) await projection.apply(event, this.db);
        running.processed = event.position;
        this.scheduleCheckpoint(running);
        this.wakeWaiters();
      });
      running.subscription.done.catch((error: unknown) => {
        console.error(`projection ${projection.name} stopped:`, error);
      });
      this.running.set(projection.name, running);
    }
  }

  async stop(): Promise<void> {
    for (const running of this.running.values()) {
      await running.subscription.stop();
      if (running.saveTimer) clearTimeout(running.saveTimer);
      await this.checkpoints.save(checkpointId(running.projection.name), running.processed, running.projection.version);
    }
    this.running.clear();
  }

  /** Resolves once the named projections (all by default) have processed the log up to `position`. */
  waitFor(position: number, names: string[] | null = null, timeoutMs = 5000): Promise<void> {
    if (this.reached(position, names)) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = { position, names, resolve: () => (clearTimeout(timer), resolve()) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`projections did not reach position ${position} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /**
   * Empties the read models of the named projections (all when none are named), forgets their
   * checkpoints and folds the whole log into them again. Returns the number of events read.
   */
  async rebuild(names: string[] = []): Promise<{ name: string; events: number }[]> {
    const chosen = names.length === 0 ? this.projections : names.map((name) => this.byName(name));
    const results: { name: string; events: number }[] = [];
    for (const projection of chosen) {
      for (const collection of projection.collections) await this.db.collection(collection).clear();
      await this.checkpoints.remove(checkpointId(projection.name));
      await projection.setup?.(this.db);
      const types = new Set(projection.eventTypes);
      let after = 0;
      let count = 0;
      for (;;) {
        const batch: RecordedEvent[] = await this.store.readAll({ after, limit: 1000 });
        if (batch.length === 0) break;
        for (const event of batch) {
          if (types.has(event.type)) await projection.apply(event, this.db);
          after = event.position;
          count++;
        }
      }
      await this.checkpoints.save(checkpointId(projection.name), after, projection.version);
      results.push({ name: projection.name, events: count });
    }
    return results;
  }

  private byName(name: string): Projection {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection "${name}" (known: ${this.projections.map((p) => p.name).join(", ")})`);
    return projection;
  }

  private scheduleCheckpoint(running: Running): void {
    if (running.saveTimer) return;
    running.saveTimer = setTimeout(() => {
      running.saveTimer = null;
      this.checkpoints.save(checkpointId(running.projection.name), running.processed, running.projection.version).catch((error: unknown) => {
        console.error(`projection ${running.projection.name}: checkpoint not saved:`, error);
      });
    }, 10);
  }

  private reached(position: number, names: string[] | null): boolean {
    const relevant = names ?? [...this.running.keys()];
    return relevant.every((name) => (this.running.get(name)?.processed ?? 0) >= position);
  }

  private wakeWaiters(): void {
    if (this.waiters.length === 0) return;
    const still: typeof this.waiters = [];
    for (const waiter of this.waiters) (this.reached(waiter.position, waiter.names) ? waiter.resolve() : still.push(waiter));
    this.waiters = still;
  }
}
