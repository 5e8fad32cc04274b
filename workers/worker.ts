import type { Bus, Consumer } from "../src/bus/port.ts";
import type { JobObservation, JobObserver, JobOutcome, Worker } from "../src/core/worker.ts";
import type { EventStore } from "../src/core/event-store.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import { decodeReference, loadReferenced } from "./subjects.ts";

export async function startWorker(
  bus: Bus,
  store: EventStore,
  worker: Worker,
  defaultConcurrency: number,
  observers: readonly JobObserver[] = [],
): Promise<Consumer> {
  const ackWaitMs = worker.ackWaitMs ?? 30_000;
  return bus.consume({ durable: worker.name, subject: worker.subject, concurrency: worker.concurrency ?? defaultConcurrency, ackWaitMs }, async (message) => {
    // Long jobs keep telling the bus they are alive, so the message is not redelivered meanwhile.
    const heartbeat = setInterval(() => message.inProgress(), Math.max(1000, ackWaitMs / 3));
    const startedAt = performance.now();
    let event: RecordedEvent | null = null;
    const observe = (outcome: JobOutcome, error?: unknown) => {
      const observation: JobObservation = {
        worker: worker.name,
        outcome,
        durationSeconds: (performance.now() - startedAt) / 1000,
        event,
        deliveryCount: message.deliveryCount,
        error,
      };
      for (const observer of observers) observer(observation);
    };
    try {
      const reference = decodeReference(message.data);
      event = await loadReferenced(store, reference);
      if (!event) {
        console.error(`${worker.name}: ${reference.type} ${reference.id} (${reference.streamName}@${reference.revision}) is not in the log; skipped`);
        observe("skipped");
        return;
      }
      await worker.handle(event, message);
      observe("done");
    } catch (error) {
      observe("failed", error);
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  });
}
