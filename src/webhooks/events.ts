/**
 * Webhooks, after the Standard Webhooks specification (docs/api.md). Two kinds of stream:
 *
 * - `webhooks-<user id>`: the account's endpoints. One stream per account, because the limit on endpoints
 *   per account is one decision over all of them; it stays short (at most `maxEndpointsPerUser` live ones).
 * - `webhookmessage-<message id>`: one message to one endpoint, from being scheduled to its last attempt.
 *   Its id is the `webhook-id` header, the same on every retry, so receivers can drop duplicates.
 *
 * `signingSecret` is the endpoint's `whsec_` secret: kept in the log because every attempt signs with it,
 * redacted by the analyst export (its name ends in "Secret") and never in a read model.
 */

/** The event types an endpoint can subscribe to. */
export const webhookEventTypes = ["task.finished", "task.failed", "task.deleted", "export.ready"] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number];
/** What `POST /api/webhooks/{id}/test` sends: not subscribable, never retried. */
export const testEventType = "webhook.test" as const;
/** What a message is: a subscribable event type, or a test. */
export type MessageType = WebhookEventType | typeof testEventType;

export type WebhookEndpointEvent =
  | {
      type: "WebhookEndpointCreated";
      data: { userId: number; endpointId: string; url: string; events: WebhookEventType[]; signingSecret: string; createdAt: string };
    }
  | { type: "WebhookEndpointDeleted"; data: { userId: number; endpointId: string } }
  /** Deliveries kept failing (or the receiver answered 410 Gone): nothing more is sent; the owner is notified. */
  | { type: "WebhookEndpointDisabled"; data: { userId: number; endpointId: string; url: string; reason: string; disabledAt: string } }
  /** Its owner turned a disabled endpoint on again: new messages go to it (those given up stay given up). */
  | { type: "WebhookEndpointEnabled"; data: { userId: number; endpointId: string; enabledAt: string } };

export const webhookEndpointEventTypes: readonly WebhookEndpointEvent["type"][] = [
  "WebhookEndpointCreated",
  "WebhookEndpointDeleted",
  "WebhookEndpointDisabled",
  "WebhookEndpointEnabled",
];

/** One attempt's outcome as the deliveries list shows it: the HTTP status (null when none came), how long, and why it failed. */
export type AttemptOutcome = { attempt: number; at: string; statusCode: number | null; durationMs: number; error: string | null };

/** Which message an attempt belongs to, and its type, so the deliveries list needs nothing else. */
export type MessageIds = { userId: number; endpointId: string; messageId: string; eventType: MessageType };

export type WebhookMessageEvent =
  | {
      type: "WebhookMessageScheduled";
      data: {
        userId: number;
        endpointId: string;
        messageId: string;
        /** A webhook event type, or `webhook.test`. */
        eventType: MessageType;
        /** The exact body every attempt sends (and signs): the same bytes on each retry. */
        payload: string;
        /** A test message is sent once, by the request that asked for it. */
        test: boolean;
        scheduledAt: string;
        /**
         * When the retry job takes the first attempt over if nobody has made it (the delivery worker makes
         * it at once): a crash between scheduling and attempting still ends in a delivery. Null for a test.
         */
        nextAttemptAt: string | null;
      };
    }
  | { type: "WebhookMessageDelivered"; data: MessageIds & AttemptOutcome }
  /** `nextAttemptAt` null: the schedule is spent (or the message was a test, or the endpoint answered 410): no more attempts. */
  | { type: "WebhookAttemptFailed"; data: MessageIds & AttemptOutcome & { nextAttemptAt: string | null } }
  /** Its endpoint was deleted or disabled before it could be delivered. */
  | { type: "WebhookMessageCancelled"; data: { userId: number; endpointId: string; messageId: string; reason: string } };

export const webhookMessageEventTypes: readonly WebhookMessageEvent["type"][] = [
  "WebhookMessageScheduled",
  "WebhookMessageDelivered",
  "WebhookAttemptFailed",
  "WebhookMessageCancelled",
];

export const webhookEndpointsStream = (userId: number) => `webhooks-${userId}`;
export const webhookMessageStream = (messageId: string) => `webhookmessage-${messageId}`;

/** At most this many endpoints per account (disabled ones count until deleted). */
export const maxEndpointsPerUser = 10;
/** The longest URL an endpoint may have. */
export const maxUrlLength = 2048;
