/** The webhooks capability: its service and routes, its read models, its workers and the retry job. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Idempotency } from "../http/idempotency.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { WebhookSettings } from "./sender.ts";
import { webhookEndpointsProjection } from "./endpoints-projection.ts";
import { webhookDeliveriesProjection } from "./deliveries-projection.ts";
import { webhookSettings } from "./settings.ts";

export type { WebhookSettings } from "./sender.ts";
export { defaultRetryScheduleSeconds } from "./schedule.ts";

type WebhooksWorkParts = { adapters: { eventStore: EventStore; documents: DocumentStore }; config: { webhooks: WebhookSettings } };

type WebhooksApiParts = WebhooksWorkParts & { waitForProjections: WaitForProjections; authenticated: Authenticated; idempotency: Idempotency };

/** How long after scheduling the retry job makes a first attempt the delivery worker has not made (a crash in between). */
const firstAttemptGraceMs = 60_000;

const deliveryOf = async ({ adapters, config }: WebhooksWorkParts) =>
  new (await import("./delivery.ts")).WebhookDelivery(adapters.eventStore, adapters.documents, config.webhooks);

export const capability: Capability<WebhooksApiParts, WebhooksWorkParts, typeof webhookSettings> = {
  name: "webhooks",
  settings: webhookSettings,
  projections: [webhookEndpointsProjection, webhookDeliveriesProjection],
  /** Endpoints are registered and tested through the API; their messages are delivered by the workers role. */
  routes: async (parts) => {
    const [{ Webhooks }, { webhookRoutes }] = await Promise.all([import("./service.ts"), import("./routes.ts")]);
    const { adapters, config, waitForProjections, authenticated, idempotency } = parts;
    const webhooks = new Webhooks(adapters.eventStore, adapters.documents, waitForProjections, await deliveryOf(parts), config.webhooks);
    return [webhookRoutes({ webhooks, authenticated, idempotency })];
  },
  workers: async (parts) => {
    const { webhookDeliveryWorker, webhookWorker } = await import("./webhook-worker.ts");
    const delivery = await deliveryOf(parts);
    return [webhookWorker(parts.adapters.eventStore, delivery, firstAttemptGraceMs), webhookDeliveryWorker(delivery, parts.config.webhooks.timeoutMs)];
  },
  jobs: async (parts) => [(await import("./retry-job.ts")).startWebhookRetryJob(await deliveryOf(parts), parts.adapters.documents)],
};
