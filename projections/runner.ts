import type { RecordedEvent } from "../src/core/event.ts";
import type { EventStore, Subscription } from "../src/eventstore/port.ts";
import type { DocumentStore } from "../src/readmodels/port.ts";
import { Checkpoints } from "./checkpoints.ts";
import { backoffMs } from "../src/core/backoff.ts";
import type { Projection } from "./projection.ts";

const checkpointId = (name: string) => `projection:${name}`;

type Running = { projection: Projection; subscription: Subscription; processed: number; saveTimer: Timer | null; failures: number; retry: Timer | null };


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
    /** Asked before each write: false once this process may no longer be the one writer (its lease lapsed). */
    private readonly mayWrite: () => boolean = () => true,
  ) {
    this.checkpoints = new Checkpoints(db);
  }

  /** Whether the projections run here (a process that is not the writer waits on saved checkpoints). */
  get active(): boolean {
    return this.running.size > 0;
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
      const running: Running = { projection, subscription: undefined as unknown as Subscription, processed: after, saveTimer: null, failures: 0, retry: null };
      this.subscribe(running);
      this.running.set(projection.name, running);
    }
  }

  /**
   * Folds the log into one projection from where it got. If the subscription fails (the store's
   * connection, or `apply` throwing) it is logged and taken up again from the last event applied, with
   * back-off: a projection never stops silently, and never skips an event.
   */
  private subscribe(running: Running): void {
    const { projection } = running;
    const types = new Set(projection.eventTypes);
    const subscription = this.store.subscribe({ after: running.processed }, async (event) => {
      if (!this.mayWrite()) throw new Error(`projection ${projection.name}: no longer the writer`);
      if (types.has(event.type)) await projection.apply(event, this.db);
      running.processed = event.position;
      running.failures = 0;
      this.scheduleCheckpoint(running);
      this.wakeWaiters();
    });
    running.subscription = subscription;
    subscription.done.catch((error: unknown) => {
      if (this.running.get(projection.name) !== running || !this.mayWrite()) return;
      running.failures++;
      const delay = backoffMs(running.failures);
      console.error(`projection ${projection.name} failed after position ${running.processed}; subscribing again in ${delay} ms:`, error);
      running.retry = setTimeout(() => {
        running.retry = null;
        if (this.running.get(projection.name) === running) this.subscribe(running);
      }, delay);
    });
  }

  async stop(): Promise<void> {
    const stopping = [...this.running.values()];
    this.running.clear();
    for (const running of stopping) {
      if (running.retry) clearTimeout(running.retry);
      await running.subscription.stop();
      if (running.saveTimer) clearTimeout(running.saveTimer);
      await this.checkpoints.save(checkpointId(running.projection.name), running.processed, running.projection.version);
    }
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
