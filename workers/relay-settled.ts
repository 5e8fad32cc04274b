import type { Checkpoints } from "../projections/checkpoints.ts";
import { LeaseFencedError } from "../src/core/lease.ts";
import { logger } from "../src/logging/logger.ts";

const log = logger("relay");

/** An event handed to the bus, by its log position; settled once the bus took it. */
export type Pending = { position: number; settled: boolean };

/**
 * The relay's checkpoint: it moves past an event only once that event and everything before it have settled,
 * so after a crash nothing unsettled is lost. At most `maxInFlight` events are unsettled at once.
 */
export class SettledCheckpoint {
  private readonly pending: Pending[] = [];
  private saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly checkpoints: Checkpoints,
    private readonly name: string,
    private saved: number,
    private readonly maxInFlight: number,
    private readonly on: {
      /** Fewer than maxInFlight events are unsettled now. */
      room(): void;
      /** Another relay holds the lease now (its epoch is on the checkpoint). */
      fenced(error: LeaseFencedError): void;
    },
  ) {}

  /** Whether as many events as may be are unsettled: nothing newer goes out until some settle. */
  get full(): boolean {
    return this.pending.length >= this.maxInFlight;
  }

  /** An event about to be published, in log order. */
  track(position: number): Pending {
    const entry: Pending = { position, settled: false };
    this.pending.push(entry);
    return entry;
  }

  settle(entry: Pending): void {
    entry.settled = true;
    this.advance();
  }

  /** Resolves once the saves begun so far are done. */
  flushed(): Promise<void> {
    return this.saving;
  }

  private advance(): void {
    let floor = this.saved;
    while (this.pending.length > 0 && this.pending[0]!.settled) floor = this.pending.shift()!.position;
    if (!this.full) this.on.room();
    if (floor === this.saved) return;
    this.saved = floor;
    this.saving = this.saving
      .then(() => this.checkpoints.save(this.name, floor))
      .catch((error: unknown) => {
        // Another relay holds the lease now: stop, as when the lease lapsed.
        if (error instanceof LeaseFencedError) this.on.fenced(error);
        log.warn({ position: floor, err: error }, "checkpoint not saved");
      });
  }
}
