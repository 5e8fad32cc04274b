import { handle } from "../../src/core/command-handler.ts";
import type { EventStore } from "../../src/core/event-store.ts";
import type { Worker } from "../../src/core/worker.ts";
import { counterDecider } from "./counter-decider.ts";

/**
 * A worker that answers every CounterOpened with one increment, checking state first as every
 * worker must, so a redelivered event changes nothing. `gate` lets a test hold a handler mid-work.
 */
export function counterWorker(store: EventStore, options: { gate?: (streamName: string) => Promise<void>; ackWaitMs?: number } = {}): Worker {
  return {
    name: "counter-incrementer",
    subject: "scribe.counter.CounterOpened",
    ackWaitMs: options.ackWaitMs,
    async handle(event) {
      await options.gate?.(event.streamName);
      const current = await store.readStream(event.streamName);
      if (current.some((e) => e.type === "CounterIncremented")) return;
      await handle(store, event.streamName, counterDecider, (state) => counterDecider.decide({ type: "Increment", by: 1 }, state), {
        metadata: { correlationId: event.metadata.correlationId, causationId: event.id, userId: null, system: "test" },
      });
    },
  };
}
