import { positionGuarded, type Projection, type ProjectedDocument } from "../core/projection.ts";
import type { MessageType, WebhookEndpointEvent, WebhookMessageEvent } from "./events.ts";

/** GET /api/webhooks/{id}/deliveries shows this many attempts, newest first; older ones are dropped from the read model. */
export const deliveriesKept = 50;

/** One attempt as the deliveries list shows it. */
export type DeliveryView = {
  message_id: string;
  type: MessageType;
  attempt: number;
  succeeded: boolean;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  attempted_at: string;
  /** When it is tried again; null when it will not be (delivered, a test, or given up). */
  next_attempt_at: string | null;
};

/** `webhook_deliveries`: one document per endpoint with its latest attempts; a deleted endpoint leaves a tombstone so late attempts are not shown. */
export type DeliveriesFields = { endpointId: string; deleted: boolean; attempts: DeliveryView[] };
export type DeliveriesDocument = ProjectedDocument & DeliveriesFields;

/**
 * `webhook_messages`: the messages still waiting for an attempt, for the retry job. A message leaves it
 * once delivered, given up or cancelled; a test message never enters it (its request makes its one attempt).
 */
export type PendingMessageFields = { messageId: string; endpointId: string; userId: number; eventType: MessageType; attempts: number; nextAttemptAt: string };
export type PendingMessageDocument = ProjectedDocument & PendingMessageFields;

type Event = WebhookMessageEvent | Extract<WebhookEndpointEvent, { type: "WebhookEndpointDeleted" }>;

const applyToMessage = positionGuarded<PendingMessageFields, WebhookMessageEvent>({
  collection: "webhook_messages",
  documentId: (event) => event.data.messageId,
  evolve: (doc, event) => {
    switch (event.type) {
      case "WebhookMessageScheduled": {
        const { messageId, endpointId, userId, eventType, test, nextAttemptAt } = event.data;
        return test || nextAttemptAt === null ? null : { messageId, endpointId, userId, eventType, attempts: 0, nextAttemptAt };
      }
      case "WebhookAttemptFailed":
        return doc && event.data.nextAttemptAt !== null ? { ...doc, attempts: event.data.attempt, nextAttemptAt: event.data.nextAttemptAt } : null;
      case "WebhookMessageDelivered":
      case "WebhookMessageCancelled":
        return null;
    }
  },
});

const applyToEndpoint = positionGuarded<DeliveriesFields, Event>({
  collection: "webhook_deliveries",
  documentId: (event) => event.data.endpointId,
  evolve: (doc, event) => {
    const current = doc ?? { endpointId: event.data.endpointId, deleted: false, attempts: [] };
    switch (event.type) {
      case "WebhookEndpointDeleted":
        return { ...current, deleted: true, attempts: [] };
      case "WebhookAttemptFailed":
      case "WebhookMessageDelivered": {
        if (current.deleted) return current;
        const failed = event.type === "WebhookAttemptFailed";
        const view: DeliveryView = {
          message_id: event.data.messageId,
          type: event.data.eventType,
          attempt: event.data.attempt,
          succeeded: !failed,
          status_code: event.data.statusCode,
          duration_ms: event.data.durationMs,
          error: event.data.error,
          attempted_at: event.data.at,
          next_attempt_at: failed ? event.data.nextAttemptAt : null,
        };
        return { ...current, attempts: [view, ...current.attempts].slice(0, deliveriesKept) };
      }
      default:
        return doc;
    }
  },
});

export const webhookDeliveriesProjection: Projection<Event> = {
  name: "webhook-deliveries",
  collections: ["webhook_messages", "webhook_deliveries"],
  eventTypes: ["WebhookMessageScheduled", "WebhookAttemptFailed", "WebhookMessageDelivered", "WebhookMessageCancelled", "WebhookEndpointDeleted"],
  async setup(db) {
    await db.collection("webhook_messages").createIndex({ nextAttemptAt: 1 });
  },
  async apply(recorded, db) {
    if (recorded.type !== "WebhookEndpointDeleted") await applyToMessage(recorded, db);
    if (recorded.type !== "WebhookMessageScheduled" && recorded.type !== "WebhookMessageCancelled") await applyToEndpoint(recorded, db);
  },
};
