import type { BusMessage } from "../bus/port.ts";
import type { RecordedEvent } from "./event.ts";

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
