import type { Bus } from "../src/bus/port.ts";
import type { EventStore, Subscription } from "../src/core/event-store.ts";
import type { Checkpoints } from "../projections/checkpoints.ts";
import { encodeEvent, subjectFor } from "./subjects.ts";
import { logger } from "../src/logging/logger.ts";

const log = logger("relay");

const relayCheckpoint = "relay";

type Pending = { position: number; settled: boolean };

export type Relay = { stop(): Promise<void>; readonly done: Promise<void> };

/**
 * Feeds the bus from the stored log, never from routes: every event is published with its event id as
 * the message id (the bus drops duplicates). Publishes overlap, and the checkpoint only moves past an
 * event once it and everything before it have settled, so after a crash nothing unsettled is lost:
 * it is published again and the workers, who check state first, shrug off the repeat.
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
  const pending: Pending[] = [];
  let saved = await checkpoints.load(relayCheckpoint);
  let saving: Promise<void> = Promise.resolve();
  let failure: unknown = null;
  let wakeWhenRoom: (() => void) | null = null;

  const advance = () => {
    let floor = saved;
    while (pending.length > 0 && pending[0]!.settled) floor = pending.shift()!.position;
    if (pending.length < maxInFlight) wakeWhenRoom?.();
    if (floor === saved) return;
    saved = floor;
    saving = saving
      .then(() => checkpoints.save(relayCheckpoint, floor))
      .catch((error: unknown) => {
        log.warn({ position: floor, err: error }, "checkpoint not saved");
      });
  };

  const mayPublish = options.mayPublish ?? (() => true);
  const subscription: Subscription = store.subscribe({ after: saved }, async (event) => {
    if (failure) throw failure;
    // A relay that lost its lease (paused past it, cut off) stops before publishing what the new one will.
    if (!mayPublish()) throw new Error("relay: no longer the relay (lease lapsed)");
    const entry: Pending = { position: event.position, settled: false };
    pending.push(entry);
    bus.publish(subjectFor(event), encodeEvent(event), { id: event.id }).then(
      () => {
        entry.settled = true;
        advance();
      },
      (error: unknown) => {
        // The bus refused the event: stop here, so the checkpoint stays before it and a restart retries.
        failure = error;
        wakeWhenRoom?.();
      },
    );
    while (pending.length >= maxInFlight && !failure) await new Promise<void>((resolve) => (wakeWhenRoom = resolve));
    if (failure) throw failure;
  });

  return {
    done: subscription.done,
    async stop() {
      await subscription.stop();
      await saving;
    },
  };
}
