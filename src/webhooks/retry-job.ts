import { bySystem } from "../core/event.ts";
import { startPeriodicJob, type PeriodicJob } from "../core/periodic-job.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { logger } from "../logging/logger.ts";
import type { WebhookDelivery } from "./delivery.ts";
import type { PendingMessageDocument } from "./deliveries-projection.ts";

const log = logger("webhooks");

/** Attempts one process makes at once; each waits at most WEBHOOK_TIMEOUT_SECONDS for its receiver. */
const maxInFlight = 32;

/**
 * Finds the messages whose next attempt is due in `webhook_messages` and makes those attempts, every
 * second: the retries, and first attempts nobody made (a crash between scheduling and attempting). The
 * schedule lives in the log and its read model, so a restart loses none. The scan is a leased job (one
 * process per period); each attempt also takes its message's lease, so a slow receiver does not hold
 * up the next scans and no message is posted twice at once.
 */
export function startWebhookRetryJob(delivery: WebhookDelivery, db: DocumentStore, everyMs = 1000): PeriodicJob {
  const inFlight = new Set<string>();
  return startPeriodicJob(
    "webhook retries",
    async () => {
      const room = maxInFlight - inFlight.size;
      if (room <= 0) return;
      const due = await db
        .collection<PendingMessageDocument>("webhook_messages")
        .find({ nextAttemptAt: { $lte: new Date().toISOString() } }, { sort: { nextAttemptAt: 1 }, limit: room + inFlight.size });
      for (const message of due.filter((m) => !inFlight.has(m.messageId)).slice(0, room)) {
        inFlight.add(message.messageId);
        delivery
          .attempt(message.messageId, "due", bySystem("webhook-retries", message.messageId))
          .catch((error: unknown) => log.warn({ messageId: message.messageId, err: error }, "a webhook attempt failed to run; the next scan tries again"))
          .finally(() => inFlight.delete(message.messageId));
      }
    },
    { everyMs, firstAfterMs: 500, across: db },
  );
}
