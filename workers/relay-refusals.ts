import type { RecordedEvent } from "../src/core/event.ts";
import { doublingMs } from "../src/core/backoff.ts";
import { logger } from "../src/logging/logger.ts";
import type { Pending } from "./relay-settled.ts";

const log = logger("relay");

/** How long the relay waits before offering a refused event again: doubling from 250 ms to 5 s. */
export const refusedRetryMs = (attempt: number) => doublingMs(attempt, 5_000);
/** While the bus keeps refusing, one line a minute says the relay still waits. */
const STILL_WAITING_LOG_MS = 60_000;

type Refused = { entry: Pending; event: RecordedEvent };

/** What the refusals need of the relay. */
export type RefusalsRelay = {
  publish(event: RecordedEvent): Promise<void>;
  settle(entry: Pending): void;
  stopped(): boolean;
  failed(): boolean;
  /** Whether this process is still the relay (its lease trusted). */
  mayPublish(): boolean;
  /** The refused events were all taken (or the relay stops): publishing may go on. */
  wakeUp(): void;
};

/**
 * The events the bus refused (a full JetStream stream, NATS away), by position: offered again, oldest first, with
 * back-off, while the relay publishes nothing newer (`waiting`). The checkpoint stays behind them meanwhile.
 */
export class RefusedEvents {
  private readonly refused: Refused[] = [];
  private retrying: Promise<void> | null = null;
  private pause: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;

  constructor(private readonly relay: RefusalsRelay) {}

  /** Whether refused events wait to be taken. */
  get waiting(): boolean {
    return this.refused.length > 0;
  }

  refuse(entry: Pending, event: RecordedEvent, error: unknown): void {
    const at = this.refused.findIndex((r) => r.entry.position > entry.position);
    this.refused.splice(at === -1 ? this.refused.length : at, 0, { entry, event });
    if (!this.retrying && !this.relay.stopped() && !this.relay.failed()) this.retrying = this.offerAgain(error);
  }

  /** Ends a back-off wait at once (the relay stops); resolves once the offering in progress has ended. */
  async stop(): Promise<void> {
    if (this.pause) {
      clearTimeout(this.pause.timer);
      this.pause.resolve();
    }
    await this.retrying;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      this.pause = { timer: setTimeout(resolve, ms), resolve };
    }).finally(() => (this.pause = null));
  }

  private async offerAgain(firstError: unknown): Promise<void> {
    const { relay, refused } = this;
    const since = Date.now();
    let lastError = firstError;
    let loggedAt = 0;
    try {
      for (let attempt = 0; refused.length > 0 && !relay.stopped() && !relay.failed(); ) {
        const retryInMs = refusedRetryMs(attempt);
        if (Date.now() - loggedAt >= STILL_WAITING_LOG_MS) {
          loggedAt = Date.now();
          log.warn(
            { position: refused[0]!.entry.position, refused: refused.length, waitedMs: loggedAt - since, retryInMs, err: lastError },
            "the bus refused events: the checkpoint stays before them, and they are offered again until it takes them",
          );
        }
        await this.sleep(retryInMs);
        // A relay whose lease is lapsing publishes nothing; its leadership stops it, or renews and it goes on.
        if (relay.stopped() || relay.failed() || !relay.mayPublish()) {
          attempt++;
          continue;
        }
        const taken = await this.offerRefused();
        if (taken.error !== undefined) lastError = taken.error;
        attempt = taken.took ? 0 : attempt + 1;
      }
    } finally {
      // In the same turn as the loop's last look at `refused`: a refusal from now on starts another round.
      this.retrying = null;
    }
    if (refused.length === 0) log.info({ waitedMs: Date.now() - since }, "the bus takes events again: publishing goes on");
    relay.wakeUp();
  }

  /** Publishes the refused events in order until the bus refuses one again; whether it took any, and why it stopped. */
  private async offerRefused(): Promise<{ took: boolean; error?: unknown }> {
    let took = false;
    while (this.refused.length > 0 && !this.relay.stopped()) {
      const next = this.refused[0]!;
      try {
        await this.relay.publish(next.event);
      } catch (error) {
        return { took, error };
      }
      // By identity: an earlier event refused meanwhile may have been put before it.
      this.refused.splice(this.refused.indexOf(next), 1);
      this.relay.settle(next.entry);
      took = true;
    }
    return { took };
  }
}
