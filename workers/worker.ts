import type { Bus, BusMessage, Consumer } from "../src/bus/port.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import type { EventStore } from "../src/eventstore/port.ts";
import { decodeReference, loadReferenced } from "./subjects.ts";

/**
 * A worker learns about work only from events on the bus and acts only through commands. Its handler
 * returns once the resulting command is appended: that is when the message is acknowledged; a throw
 * (or a crash) means the event is delivered again, so handlers check the current state first.
 */
export type Worker = {
  /** Durable consumer name: every process running this worker shares one queue. */
  name: string;
  /** Subject filter, e.g. `scribe.task.TaskCreated` or `scribe.task.>`. */
  subject: string;
  /** Messages handled at once by this process (defaults to the service's WORKER_CONCURRENCY). */
  concurrency?: number;
  /** How long a delivery may go unacknowledged before the bus hands it to someone else. */
  ackWaitMs?: number;
  handle(event: RecordedEvent, message: BusMessage): Promise<void>;
  /** Called when the service stops: long jobs give up, so their message is delivered again (elsewhere or after a restart). */
  abort?(): void;
};

export async function startWorker(bus: Bus, store: EventStore, worker: Worker, defaultConcurrency: number): Promise<Consumer> {
  const ackWaitMs = worker.ackWaitMs ?? 30_000;
  return bus.consume(
    { durable: worker.name, subject: worker.subject, concurrency: worker.concurrency ?? defaultConcurrency, ackWaitMs },
    async (message) => {
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
    },
  );
}
