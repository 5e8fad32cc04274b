import type { BusMessage } from "../bus/port.ts";
import type { DomainEvent } from "./decider.ts";
import type { Recorded, RecordedEvent } from "./event.ts";

/**
 * A worker learns about work only from events on the bus and acts only through commands. Its handler
 * returns once the resulting command is appended: that is when the message is acknowledged; a throw
 * (or a crash) means the event is delivered again, so handlers check the current state first.
 *
 * `E` is the union of the events it handles: a worker typed so declares their `eventTypes`, and only those
 * reach `handle` (deliverTo checks); one left untyped handles every event of its subject.
 */
export type Worker<E extends DomainEvent = DomainEvent> = {
  /** Durable consumer name: every process running this worker shares one queue. */
  name: string;
  /** Subject filter, e.g. `scribe.task.TaskCreated` or `scribe.task.>`. */
  subject: string;
  /** Messages handled at once by this process (defaults to the service's WORKER_CONCURRENCY). */
  concurrency?: number;
  /** How long a delivery may go unacknowledged before the bus hands it to someone else. */
  ackWaitMs?: number;
  handle(event: Recorded<E>, message: BusMessage): Promise<void>;
  /** Called when the service stops: long jobs give up, so their message is delivered again (elsewhere or after a restart). */
  abort?(): void;
} & (DomainEvent extends E
  ? { eventTypes?: readonly string[] }
  : {
      /** Only these event types reach `handle`; a delivery of another (the subject is wider) is acknowledged unhandled. */
      eventTypes: readonly E["type"][];
    });

/**
 * Hands `event` to the worker if it is one of the worker's declared types (any, when it declares none): the one
 * place a delivery is narrowed to the worker's events. False when it was not handed over (acknowledged unhandled).
 */
export async function deliverTo(worker: Worker, event: RecordedEvent, message: BusMessage): Promise<boolean> {
  if (worker.eventTypes && !worker.eventTypes.includes(event.type)) return false;
  await worker.handle(event, message);
  return true;
}

/** How a delivery ended: handled (acknowledged), failed (the bus delivers it again), or skipped (its event is not in the log). */
export const jobOutcomes = ["done", "failed", "skipped"] as const;
export type JobOutcome = (typeof jobOutcomes)[number];

/** One delivery to a worker as operators see it: in the workers' log lines and in `scribe_worker_jobs_total`. */
export type JobObservation = {
  worker: string;
  outcome: JobOutcome;
  durationSeconds: number;
  /** The event the worker reacted to; null when it is no longer in the log. */
  event: RecordedEvent | null;
  deliveryCount: number;
  error?: unknown;
};

export type JobObserver = (observation: JobObservation) => void;
