import type { Bus, BusMessage, Consumer } from "../src/bus/port.ts";
import { deliverTo, type JobObservation, type JobObserver, type JobOutcome, type Worker } from "../src/core/worker.ts";
import type { EventStore } from "../src/core/event-store.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import { decodeReference, loadReferenced } from "./subjects.ts";
import { logger, withLogContext } from "../src/logging/logger.ts";
import { doublingMs } from "../src/core/backoff.ts";
import { inTurnShare } from "../src/core/turn-share.ts";
import { DEFAULT_MAX_DELIVER } from "../src/bus/retry.ts";
import { deadLetterRecorder, type DeadLetterFailure, type DeadLetterRecorder } from "../src/dead-letters/record.ts";
import { RedriveFailed } from "../src/dead-letters/redrive-worker.ts";

const log = logger("worker");

/** The names of this process's own dependencies (event store, read models, blobs) that do not answer now. */
export type DependenciesDown = () => Promise<string[]>;

/** How long a message waits between tries while a dependency is down: doubling from 250 ms to 1 min. */
export const outageRetryMs = (attempt: number) => doublingMs(attempt, 60_000);

/**
 * Handles each delivery of the worker's subject. A failure is first told apart: when one of the process's own
 * dependencies is down (an event-store restart, a read-model failover), the failure is not the message's fault:
 * it is kept (heartbeats go on) and tried again with back-off until the dependency answers, without spending a
 * delivery, so an outage of any length loses no work. Only a failure while every dependency answers counts
 * against the message's deliveries, and when the last of them fails the message is recorded as a dead letter
 * (src/dead-letters) before the bus gives up on it: the operator lists it and runs it again once the cause is fixed.
 */
export async function startWorker(
  bus: Bus,
  store: EventStore,
  worker: Worker,
  defaultConcurrency: number,
  observers: readonly JobObserver[] = [],
  dependenciesDown: DependenciesDown = async () => [],
  deadLetters: DeadLetterRecorder = deadLetterRecorder(store),
): Promise<Consumer> {
  const ackWaitMs = worker.ackWaitMs ?? 30_000;
  // Named here rather than left to the bus's default, so "the last delivery" means the same to both.
  const maxDeliver = DEFAULT_MAX_DELIVER;
  // Stopping ends the waits for a dependency: the message goes back to the bus for another process (or the next start).
  const stopping = new AbortController();
  const consumer = await bus.consume(
    { durable: worker.name, subject: worker.subject, concurrency: worker.concurrency ?? defaultConcurrency, ackWaitMs, maxDeliver },
    async (message) => {
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
        event = await whileDown(() => loadReferenced(store, reference), dependenciesDown, stopping.signal, {
          worker: worker.name,
          stream: reference.streamName,
        });
        if (!event) {
          log.warn(
            { worker: worker.name, eventType: reference.type, eventId: reference.id, stream: reference.streamName, revision: reference.revision },
            "event not in the log; delivery skipped",
          );
          observe("skipped");
          return;
        }
        const handled = event;
        await whileDown(() => inTurnShare(() => delivery(worker, handled, message)), dependenciesDown, stopping.signal, {
          worker: worker.name,
          eventType: handled.type,
          eventId: handled.id,
          stream: handled.streamName,
        });
        observe("done");
      } catch (error) {
        observe("failed", error);
        // The handler failed while every dependency answered (whileDown waits out the other failures), on the
        // last delivery: kept as a dead letter, then the throw lets the bus give the message up.
        if (event && message.deliveryCount >= maxDeliver && !stopping.signal.aborted) {
          await setAside(deadLetters, deadLetterOf(worker.name, event, message.deliveryCount, error), dependenciesDown, stopping.signal);
        }
        throw error;
      } finally {
        clearInterval(heartbeat);
      }
    },
  );
  return {
    stop: async () => {
      stopping.abort();
      await consumer.stop();
    },
  };
}

/**
 * The worker's handling of the event, a piece of the turn's share (turn-share.ts): every worker of a process is handed
 * the same event at once, and an append wakes them beside every projection. A delivery still waiting for its turn when
 * the stop begins runs in a later turn, and the stop waits for it (the stores close only once every role has stopped):
 * handing it back instead would spend one of its deliveries, and on the last one lose it. Every line logged meanwhile
 * carries the worker and the event's correlation id (see withLogContext).
 */
function delivery(worker: Worker, event: RecordedEvent, message: BusMessage): Promise<boolean> {
  return withLogContext({ worker: worker.name, correlationId: event.metadata.correlationId }, () => deliverTo(worker, event, message));
}

/** What failed: a retried dead letter that failed again is its own worker's and event's, not the redrive worker's. */
function deadLetterOf(worker: string, event: RecordedEvent, deliveries: number, error: unknown): DeadLetterFailure {
  if (error instanceof RedriveFailed) return { worker: error.worker, event: error.event, deliveries, error: error.failure };
  return { worker, event, deliveries, error };
}

/** Records the dead letter, waiting out an outage like the handler; a recording that fails otherwise is logged. */
async function setAside(deadLetters: DeadLetterRecorder, failure: DeadLetterFailure, dependenciesDown: DependenciesDown, stopping: AbortSignal) {
  const about = { worker: failure.worker, eventType: failure.event.type, eventId: failure.event.id, stream: failure.event.streamName };
  try {
    const deadLetterId = await whileDown(() => deadLetters(failure), dependenciesDown, stopping, about);
    log.error({ ...about, deadLetterId, deliveries: failure.deliveries, err: failure.error }, "a message failed on every delivery; set aside as a dead letter");
  } catch (error) {
    log.error(
      { ...about, deliveries: failure.deliveries, err: failure.error, recordError: error },
      "a message failed on every delivery; its dead letter could not be recorded",
    );
  }
}

/** Runs `work`, trying again with back-off for as long as a failure comes with a dependency down. */
async function whileDown<T>(work: () => Promise<T>, dependenciesDown: DependenciesDown, stopping: AbortSignal, about: Record<string, unknown>): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (stopping.aborted) throw error;
      const down = await dependenciesDown().catch(() => ["dependencies"]);
      if (down.length === 0) throw error;
      const retryInMs = outageRetryMs(attempt);
      log.warn({ ...about, down, retryInMs, err: error }, "a dependency is down; the message is kept and tried again");
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, retryInMs);
        stopping.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
      });
    }
  }
}
