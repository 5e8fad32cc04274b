import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import { webhookEndpointEventTypes, type WebhookEndpointEvent, type WebhookEventType } from "./events.ts";

/** The `webhook_endpoints` read model: what `GET /api/webhooks` lists. The signing secret is never here. */
export type EndpointFields = {
  id: string;
  userId: number;
  url: string;
  events: WebhookEventType[];
  status: "enabled" | "disabled";
  disabledReason: string | null;
  createdAt: string;
};
export type EndpointDocument = ProjectedDocument & EndpointFields;

export const webhookEndpointsProjection: Projection<WebhookEndpointEvent> = {
  name: "webhook-endpoints",
  collections: ["webhook_endpoints"],
  eventTypes: webhookEndpointEventTypes,
  async setup(db) {
    await db.collection("webhook_endpoints").createIndex({ userId: 1, createdAt: 1 });
  },
  apply: positionGuarded<EndpointFields, WebhookEndpointEvent>({
    collection: "webhook_endpoints",
    documentId: (event) => event.data.endpointId,
    evolve: (doc, event) => {
      switch (event.type) {
        case "WebhookEndpointCreated": {
          const { endpointId, userId, url, events, createdAt } = event.data;
          return { id: endpointId, userId, url, events, status: "enabled", disabledReason: null, createdAt };
        }
        case "WebhookEndpointDisabled":
          return doc && { ...doc, status: "disabled", disabledReason: event.data.reason };
        case "WebhookEndpointEnabled":
          return doc && { ...doc, status: "enabled", disabledReason: null };
        case "WebhookEndpointDeleted":
          return null;
      }
    },
  }),
};
