import type { EventStore } from "../src/core/event-store.ts";
import type { DocumentStore } from "../src/readmodels/port.ts";
import { Checkpoints, checkpointId, type CheckpointEntry } from "./checkpoints.ts";
import { backoffMs } from "../src/core/backoff.ts";
import { declaredBy, noProjectionContext, type Projection, type ProjectionContext } from "../src/core/projection.ts";
import { buildShadow, swapShadowIn } from "./rebuild.ts";
import type { Patience } from "./patience.ts";
import { PositionWaiters } from "./position-waiters.ts";
import { CheckpointSaves } from "./checkpoint-saves.ts";
import { startingAt, type Running } from "./running.ts";
import { pollReplays, takeReadyReplays } from "./replay-poll.ts";
import { logger } from "../src/logging/logger.ts";
import { LeaseFencedError, type LeaseFence } from "../src/core/lease.ts";

const log = logger("projections");

export { WORKING_BEAT_MS } from "./checkpoint-saves.ts";

/**
 * Runs each projection on its own checkpointed subscription to the log. Checkpoints are saved shortly
 * after the last event (coalesced under load); projections are idempotent, so the few events after a
 * saved checkpoint that arrive again after a crash change nothing.
 *
 * Under a lease (a LeaseFence: the service's leadership, a CLI's whileHeld) the checkpoints are fenced by its
 * epoch (checkpoints.ts): a runner whose save is refused has lost the lease without knowing it, and pauses as
 * when its lease is not trusted. Its read-model writes themselves are not fenced (that would cost a read of
 * the lease per write): the new holder starts from the checkpoint it claimed, which the old one can no longer
 * move, and folds every event after it again, over whatever the old one wrote meanwhile. Position-guarded
 * documents (core/projection.ts) come out as a fresh replay would make them, since each writer folds the log
 * in order; the fence bounds how long the old writer goes on to one checkpoint save (10 ms after an event).
 */
export class ProjectionRunner {
  private readonly running = new Map<string, Running>();
  private readonly checkpoints: Checkpoints;
  private readonly saves: CheckpointSaves;
  private readonly waiters = new PositionWaiters(this.running);
  private replayPoll: { stop(): Promise<void> } | null = null;
  /** Whether this process's lease is trusted now (the writer given to the constructor). */
  private readonly mayHold: () => boolean;
  /** Set when a checkpoint save was refused for a later epoch (LeaseFencedError); cleared by the next start. */
  private fenced = false;

  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    readonly projections: readonly Projection[],
    /**
     * Asked before each write: false once this process may no longer be the one writer (its lease lapsed). A
     * lease's fence also fences the checkpoints with its epoch.
     */
    writer: (() => boolean) | LeaseFence = () => true,
    /** What projections read besides events (the blobs transcripts live in). */
    private readonly context: ProjectionContext = noProjectionContext,
  ) {
    this.mayHold = typeof writer === "function" ? writer : () => writer.isHeld();
    this.checkpoints = new Checkpoints(db, typeof writer === "function" ? null : writer);
    this.saves = new CheckpointSaves(this.checkpoints, (error) => this.fencedOut(error));
  }

  /** Whether this runner may write now: its lease is trusted and no later holder has fenced it out. */
  private mayWrite(): boolean {
    return !this.fenced && this.mayHold();
  }

  /** A save was refused: another process holds the lease now. Pauses every projection until the lease decides. */
  private fencedOut(error: LeaseFencedError): void {
    if (!this.fenced) log.warn({ err: error }, "projections paused: another process holds the projections lease now (a checkpoint save was refused)");
    this.fenced = true;
  }

  /** Whether the projections run here (a process that is not the writer waits on saved checkpoints). */
  get active(): boolean {
    return this.running.size > 0;
  }

  /**
   * The projections that should run here but do not: failing (resubscribing with back-off) for longer than
   * `graceMs`, or missing after start. For readiness: a runner that cannot fold the log must be seen.
   */
  notRunning(graceMs = 5_000, now = Date.now()): { name: string; failingForMs: number }[] {
    if (!this.active) return [];
    return [...this.running]
      .filter(([, running]) => running.failingSince !== null && now - running.failingSince > graceMs)
      .map(([name, running]) => ({ name, failingForMs: now - (running.failingSince ?? now) }));
  }

  /** How far each projection running here has folded the log (live, ahead of its saved checkpoint). */
  positions(): Map<string, number> {
    return new Map([...this.running].map(([name, running]) => [name, running.processed]));
  }

  async start(): Promise<void> {
    this.fenced = false;
    // Every checkpoint claimed for this writer's epoch (under a lease) before anything is written or subscribed.
    const claimed = new Map<string, CheckpointEntry>();
    for (const projection of this.projections) claimed.set(projection.name, await this.checkpoints.entry(checkpointId(projection.name)));
    for (const projection of this.projections) {
      const id = checkpointId(projection.name);
      const version = projection.version ?? 1;
      const saved = claimed.get(projection.name)!;
      let after = saved.position;
      if (after > 0 && saved.version !== version) {
        log.info({ projection: projection.name, version }, "its documents changed shape: rebuilding from the log");
        await this.rebuild([projection.name]);
        after = await this.checkpoints.load(id);
      }
      await projection.setup?.(this.db);
      const running = startingAt(projection, after);
      this.subscribe(running);
      this.running.set(projection.name, running);
    }
    this.replayPoll = pollReplays(() => this.takeReplays());
  }

  /**
   * Folds the log into one projection from where it got. If the subscription fails (the store's
   * connection, or `apply` throwing) it is logged and taken up again from the last event applied, with
   * back-off: a projection never stops silently, and never skips an event.
   */
  private subscribe(running: Running): void {
    const { projection } = running;
    const declared = declaredBy(projection);
    const subscription = this.store.subscribe({ after: running.processed }, async (event) => {
      if (!this.mayWrite()) throw new Error(`projection ${projection.name}: no longer the writer`);
      if (declared(event)) {
        running.applying = true;
        const beating = this.saves.beatWhileApplying(running);
        try {
          await projection.apply(event, this.db, this.context);
        } finally {
          running.applying = false;
          clearInterval(beating);
        }
      }
      running.processed = event.position;
      running.failures = 0;
      running.failingSince = null;
      this.saves.schedule(running);
      this.waiters.wake();
    });
    running.subscription = subscription;
    subscription.done.catch((error: unknown) => {
      // Stopped on purpose (stop, or a swap that subscribes again itself): nothing to do.
      if (this.running.get(projection.name) !== running || running.paused) return;
      running.failures++;
      running.failingSince ??= Date.now();
      const delay = backoffMs(running.failures);
      // Not the writer for a moment (the lease renewed late after a stall): the leadership either renews it, and
      // the next try goes on, or resigns and stops this runner. Never a silent stop while the lease is held.
      const fields = { projection: projection.name, position: running.processed, retryInMs: delay, err: error };
      if (this.mayWrite()) log.error(fields, "projection failed; subscribing again");
      else log.warn(fields, "projection paused: this process may not write now; trying again");
      running.retry = setTimeout(() => {
        running.retry = null;
        if (this.running.get(projection.name) === running && !running.paused) this.subscribe(running);
      }, delay);
    });
  }

  async stop(): Promise<void> {
    await this.replayPoll?.stop();
    this.replayPoll = null;
    const stopping = [...this.running.values()];
    this.running.clear();
    for (const running of stopping) {
      if (running.retry) clearTimeout(running.retry);
      await running.subscription?.stop();
      if (running.saveTimer) clearTimeout(running.saveTimer);
      if (this.fenced) continue;
      await this.checkpoints.save(checkpointId(running.projection.name), running.processed, running.projection.version).catch((error: unknown) => {
        // Stopped because the lease went to another process: its checkpoint stands.
        if (!(error instanceof LeaseFencedError)) throw error;
      });
    }
  }

  /** Resolves once the named projections (all by default) have processed the log up to `position` (PositionWaiters). */
  waitFor(position: number, names: string[] | null = null, patience: Partial<Patience> | number = {}): Promise<void> {
    return this.waiters.waitFor(position, names, patience);
  }

  /**
   * Rebuilds the named projections' read models (all when none are named) from the whole log, beside the
   * live ones, and swaps each in whole once it has caught up: readers never see an emptied or half-built
   * model. Only for the writer (the lease holder, or a process with no other writer). Returns the number
   * of events folded.
   */
  async rebuild(names: string[] = []): Promise<{ name: string; events: number }[]> {
    const chosen = names.length === 0 ? this.projections : names.map((name) => this.byName(name));
    const results: { name: string; events: number }[] = [];
    for (const projection of chosen) {
      const built = await buildShadow(this.store, this.db, projection, this.context);
      await this.swapIn(projection, built.position);
      results.push({ name: projection.name, events: built.events });
    }
    return results;
  }

  /**
   * Swaps in a shadow built up to `shadowPosition`: the projection's subscription (when running) pauses,
   * the shadow catches up to the end of the log and replaces the live collections, and the subscription
   * goes on from there. Readers meanwhile read the live model, a few events behind at most.
   */
  private async swapIn(projection: Projection, shadowPosition: number): Promise<void> {
    const running = this.running.get(projection.name);
    if (running) {
      running.paused = true;
      if (running.retry) clearTimeout(running.retry);
      running.retry = null;
      await running.subscription?.stop();
    }
    try {
      const position = await swapShadowIn(this.store, this.db, this.checkpoints, projection, shadowPosition, this.context);
      if (running) running.processed = position;
    } finally {
      if (running && this.running.get(projection.name) === running) {
        running.paused = false;
        this.subscribe(running);
      }
    }
  }

  /** Swaps in the shadows a `bun run replay` built while this process was the writer (replay-poll.ts). */
  private async takeReplays(): Promise<void> {
    if (!this.active || !this.mayWrite()) return;
    await takeReadyReplays(this.db, this.projections, (projection, position) => this.swapIn(projection, position)).catch((error: unknown) => {
      // Fenced out: the request stays ready for the process that holds the lease now.
      if (error instanceof LeaseFencedError) return this.fencedOut(error);
      throw error;
    });
  }

  private byName(name: string): Projection {
    const projection = this.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection "${name}" (known: ${this.projections.map((p) => p.name).join(", ")})`);
    return projection;
  }
}
