import type { Bus, Consumer } from "../src/bus/port.ts";
import type { JobObservation, JobObserver, JobOutcome, Worker } from "../src/core/worker.ts";
import type { EventStore } from "../src/core/event-store.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import { decodeReference, loadReferenced } from "./subjects.ts";
import { logger, withLogContext } from "../src/logging/logger.ts";

const log = logger("worker");

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
        log.warn(
          { worker: worker.name, eventType: reference.type, eventId: reference.id, stream: reference.streamName, revision: reference.revision },
          "event not in the log; delivery skipped",
        );
        observe("skipped");
        return;
      }
      // Every line logged while the worker handles the event carries its worker and correlation id (see withLogContext).
      const handled = event;
      await withLogContext({ worker: worker.name, correlationId: handled.metadata.correlationId }, () => worker.handle(handled, message));
      observe("done");
    } catch (error) {
      observe("failed", error);
      throw error;
    } finally {
      clearInterval(heartbeat);
    }
  });
}
