import type { Bus } from "../src/bus/port.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import type { EventStore, Subscription } from "../src/core/event-store.ts";
import type { Checkpoints } from "../projections/checkpoints.ts";
import { encodeEvent, subjectFor } from "./subjects.ts";
import { SettledCheckpoint } from "./relay-settled.ts";
import { RefusedEvents } from "./relay-refusals.ts";

export { refusedRetryMs } from "./relay-refusals.ts";

const relayCheckpoint = "relay";

export type Relay = { stop(): Promise<void>; readonly done: Promise<void> };

/**
 * Feeds the bus from the stored log, never from routes: every event is published with its event id as
 * the message id (the bus drops duplicates). Publishes overlap, and the checkpoint only moves past an
 * event once it and everything before it have settled, so after a crash nothing unsettled is lost:
 * it is published again and the workers, who check state first, shrug off the repeat (relay-settled.ts).
 *
 * An event the bus refuses (a full JetStream stream, NATS away) is offered again, oldest first, with back-off,
 * while nothing newer is published: the checkpoint stays behind it, and publishing goes on once it is taken
 * (relay-refusals.ts).
 */
export async function startRelay(options: {
  store: EventStore;
  bus: Bus;
  checkpoints: Checkpoints;
  maxInFlight?: number;
  mayPublish?: () => boolean;
}): Promise<Relay> {
  const { store, bus, checkpoints } = options;
  const mayPublish = options.mayPublish ?? (() => true);
  let failure: unknown = null;
  let stopped = false;
  let wake: (() => void) | null = null;
  const wakeUp = () => {
    wake?.();
    wake = null;
  };
  const saved = await checkpoints.load(relayCheckpoint);
  const settled = new SettledCheckpoint(checkpoints, relayCheckpoint, saved, options.maxInFlight ?? 10_000, {
    room: wakeUp,
    fenced: (error) => {
      failure ??= error;
      wakeUp();
    },
  });
  const publish = (event: RecordedEvent) => bus.publish(subjectFor(event), encodeEvent(event), { id: event.id });
  const refusals = new RefusedEvents({
    publish,
    settle: (entry) => settled.settle(entry),
    stopped: () => stopped,
    failed: () => Boolean(failure),
    mayPublish,
    wakeUp,
  });

  const subscription: Subscription = store.subscribe({ after: saved }, async (event) => {
    // Nothing newer goes out while refused events wait, nor while too many are unsettled.
    while ((refusals.waiting || settled.full) && !stopped && !failure) await new Promise<void>((resolve) => (wake = resolve));
    if (failure) throw failure;
    if (stopped) return; // not tracked: the checkpoint cannot pass it
    // A relay that lost its lease (paused past it, cut off) stops before publishing what the new one will.
    if (!mayPublish()) throw new Error("relay: no longer the relay (lease lapsed)");
    const entry = settled.track(event.position);
    publish(event).then(
      () => settled.settle(entry),
      (error: unknown) => refusals.refuse(entry, event, error),
    );
  });

  return {
    done: subscription.done,
    async stop() {
      stopped = true;
      wakeUp();
      const refusalsStopped = refusals.stop();
      await subscription.stop();
      await refusalsStopped;
      await settled.flushed();
    },
  };
}
