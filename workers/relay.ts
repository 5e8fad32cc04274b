import type { Bus } from "../src/bus/port.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import type { EventStore, Subscription } from "../src/core/event-store.ts";
import type { Checkpoints } from "../projections/checkpoints.ts";
import { encodeEvent, subjectFor } from "./subjects.ts";
import { logger } from "../src/logging/logger.ts";
import { LeaseFencedError } from "../src/core/lease.ts";
import { doublingMs } from "../src/core/backoff.ts";

const log = logger("relay");

const relayCheckpoint = "relay";

type Pending = { position: number; settled: boolean };
type Refused = { entry: Pending; event: RecordedEvent };

export type Relay = { stop(): Promise<void>; readonly done: Promise<void> };

/** How long the relay waits before offering a refused event again: doubling from 250 ms to 5 s. */
export const refusedRetryMs = (attempt: number) => doublingMs(attempt, 5_000);
/** While the bus keeps refusing, one line a minute says the relay still waits. */
const STILL_WAITING_LOG_MS = 60_000;

/**
 * Feeds the bus from the stored log, never from routes: every event is published with its event id as
 * the message id (the bus drops duplicates). Publishes overlap, and the checkpoint only moves past an
 * event once it and everything before it have settled, so after a crash nothing unsettled is lost:
 * it is published again and the workers, who check state first, shrug off the repeat.
 *
 * An event the bus refuses (a full JetStream stream, NATS away) is offered again, oldest first, with back-off,
 * while nothing newer is published: the checkpoint stays behind it, and publishing goes on once it is taken.
 */
export async function startRelay(options: {
  store: EventStore;
  bus: Bus;
  checkpoints: Checkpoints;
  maxInFlight?: number;
  mayPublish?: () => boolean;
}): Promise<Relay> {
  const { store, bus, checkpoints } = options;
  const maxInFlight = options.maxInFlight ?? 10_000;
  const mayPublish = options.mayPublish ?? (() => true);
  const pending: Pending[] = [];
  /** Refused events, by position: offered again in log order. */
  const refused: Refused[] = [];
  let saved = await checkpoints.load(relayCheckpoint);
  let saving: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  let stopped = false;
  let wake: (() => void) | null = null;
  let retrying: Promise<void> | null = null;
  let pause: { timer: ReturnType<typeof setTimeout>; resolve: () => void } | null = null;

  const wakeUp = () => {
    wake?.();
    wake = null;
  };

  const advance = () => {
    let floor = saved;
    while (pending.length > 0 && pending[0]!.settled) floor = pending.shift()!.position;
    if (pending.length < maxInFlight) wakeUp();
    if (floor === saved) return;
    saved = floor;
    saving = saving
      .then(() => checkpoints.save(relayCheckpoint, floor))
      .catch((error: unknown) => {
        // Another relay holds the lease now (its epoch is on the checkpoint): stop, as when the lease lapsed.
        if (error instanceof LeaseFencedError) {
          failure ??= error;
          wakeUp();
        }
        log.warn({ position: floor, err: error }, "checkpoint not saved");
      });
  };

  const settle = (entry: Pending) => {
    entry.settled = true;
    advance();
  };

  const publish = (event: RecordedEvent) => bus.publish(subjectFor(event), encodeEvent(event), { id: event.id });

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      pause = { timer: setTimeout(resolve, ms), resolve };
    }).finally(() => (pause = null));

  const offerAgain = async (firstError: unknown) => {
    const since = Date.now();
    let lastError = firstError;
    let loggedAt = 0;
    try {
      for (let attempt = 0; refused.length > 0 && !stopped && !failure; ) {
        const retryInMs = refusedRetryMs(attempt);
        if (Date.now() - loggedAt >= STILL_WAITING_LOG_MS) {
          loggedAt = Date.now();
          log.warn(
            { position: refused[0]!.entry.position, refused: refused.length, waitedMs: loggedAt - since, retryInMs, err: lastError },
            "the bus refused events: the checkpoint stays before them, and they are offered again until it takes them",
          );
        }
        await sleep(retryInMs);
        // A relay whose lease is lapsing publishes nothing; its leadership stops it, or renews and it goes on.
        if (stopped || failure || !mayPublish()) {
          attempt++;
          continue;
        }
        let took = false;
        while (refused.length > 0 && !stopped) {
          const next = refused[0]!;
          try {
            await publish(next.event);
          } catch (error) {
            lastError = error;
            break;
          }
          // By identity: an earlier event refused meanwhile may have been put before it.
          refused.splice(refused.indexOf(next), 1);
          settle(next.entry);
          took = true;
        }
        attempt = took ? 0 : attempt + 1;
      }
    } finally {
      // In the same turn as the loop's last look at `refused`: a refusal from now on starts another round.
      retrying = null;
    }
    if (refused.length === 0) log.info({ waitedMs: Date.now() - since }, "the bus takes events again: publishing goes on");
    wakeUp();
  };

  const refuse = (entry: Pending, event: RecordedEvent, error: unknown) => {
    const at = refused.findIndex((r) => r.entry.position > entry.position);
    refused.splice(at === -1 ? refused.length : at, 0, { entry, event });
    if (!retrying && !stopped && !failure) retrying = offerAgain(error);
  };

  const subscription: Subscription = store.subscribe({ after: saved }, async (event) => {
    // Nothing newer goes out while refused events wait, nor while too many are unsettled.
    while ((refused.length > 0 || pending.length >= maxInFlight) && !stopped && !failure) await new Promise<void>((resolve) => (wake = resolve));
    if (failure) throw failure;
    if (stopped) return; // not in pending: the checkpoint cannot pass it
    // A relay that lost its lease (paused past it, cut off) stops before publishing what the new one will.
    if (!mayPublish()) throw new Error("relay: no longer the relay (lease lapsed)");
    const entry: Pending = { position: event.position, settled: false };
    pending.push(entry);
    publish(event).then(
      () => settle(entry),
      (error: unknown) => refuse(entry, event, error),
    );
  });

  return {
    done: subscription.done,
    async stop() {
      stopped = true;
      wakeUp();
      if (pause) {
        clearTimeout(pause.timer);
        pause.resolve();
      }
      await subscription.stop();
      await retrying;
      await saving;
    },
  };
}
