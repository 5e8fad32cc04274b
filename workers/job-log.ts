import { logger, type Logger } from "../src/logging/logger.ts";
import type { RecordedEvent } from "../src/core/event.ts";
import type { JobObserver } from "../src/core/worker.ts";

/** The task an event is about, when its data names one (every task event does, and some others). */
function taskIdOf(event: RecordedEvent | null): number | null {
  const taskId = (event?.data as { taskId?: unknown } | undefined)?.taskId;
  return typeof taskId === "number" ? taskId : null;
}

/**
 * One line per delivery to a worker: which worker, the event (type, id, stream, its correlationId and
 * taskId), how it ended (`outcome`: done, failed, skipped), `durationMs`, the delivery's count and the
 * error. A failed delivery is delivered again, so it is a warning; the bus logs an error once it gives up.
 */
export function jobLog(log: Logger = logger("worker")): JobObserver {
  return ({ worker, outcome, durationSeconds, event, deliveryCount, error }) => {
    const line = {
      worker,
      outcome,
      eventType: event?.type ?? null,
      eventId: event?.id ?? null,
      stream: event?.streamName ?? null,
      correlationId: event?.metadata.correlationId ?? null,
      taskId: taskIdOf(event),
      durationMs: Math.round(durationSeconds * 10_000) / 10,
      deliveryCount,
    };
    if (outcome === "failed") log.warn({ ...line, err: error }, "job failed; it will be delivered again");
    else log.info(line, `job ${outcome}`);
  };
}
