import type { Bus, Consumer } from "../src/bus/port.ts";
import type { Worker } from "../src/core/worker.ts";
import type { EventStore } from "../src/core/event-store.ts";
import { decodeReference, loadReferenced } from "./subjects.ts";

export async function startWorker(bus: Bus, store: EventStore, worker: Worker, defaultConcurrency: number): Promise<Consumer> {
  const ackWaitMs = worker.ackWaitMs ?? 30_000;
  return bus.consume({ durable: worker.name, subject: worker.subject, concurrency: worker.concurrency ?? defaultConcurrency, ackWaitMs }, async (message) => {
    // Long jobs keep telling the bus they are alive, so the message is not redelivered meanwhile.
    const heartbeat = setInterval(() => message.inProgress(), Math.max(1000, ackWaitMs / 3));
    try {
      const reference = decodeReference(message.data);
      const event = await loadReferenced(store, reference);
      if (!event) {
        console.error(`${worker.name}: ${reference.type} ${reference.id} (${reference.streamName}@${reference.revision}) is not in the log; skipped`);
        return;
      }
      await worker.handle(event, message);
    } finally {
      clearInterval(heartbeat);
    }
  });
}
