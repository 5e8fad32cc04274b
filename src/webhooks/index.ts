/** The webhooks capability: its service and routes, its read models, its workers and the retry job. */
import type { Projection } from "../core/projection.ts";
import type { Worker } from "../core/worker.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { webhookEndpointsProjection } from "./endpoints-projection.ts";
import { webhookDeliveriesProjection } from "./deliveries-projection.ts";
import { WebhookDelivery } from "./delivery.ts";
import type { WebhookSettings } from "./sender.ts";
import { webhookDeliveryWorker, webhookWorker } from "./webhook-worker.ts";

export { Webhooks } from "./service.ts";
export { webhookRoutes } from "./routes.ts";
export { WebhookDelivery } from "./delivery.ts";
export { startWebhookRetryJob } from "./retry-job.ts";
export type { WebhookSettings } from "./sender.ts";
export { defaultRetryScheduleSeconds } from "./schedule.ts";

export const projections: Projection[] = [webhookEndpointsProjection, webhookDeliveriesProjection];

/** How long after scheduling the retry job makes a first attempt the delivery worker has not made (a crash in between). */
const firstAttemptGraceMs = 60_000;

export function workers({ eventStore, documents, webhooks }: { eventStore: EventStore; documents: DocumentStore; webhooks: WebhookSettings }): Worker[] {
  const delivery = new WebhookDelivery(eventStore, documents, webhooks);
  return [webhookWorker(eventStore, delivery, firstAttemptGraceMs), webhookDeliveryWorker(delivery, webhooks.timeoutMs)];
}
