import { t } from "elysia";
import { stringEnum } from "../http/openapi/string-enum.ts";
import { maxUrlLength, testEventType, webhookEventTypes } from "./events.ts";
import { deliveriesKept } from "./deliveries-projection.ts";

const eventType = stringEnum(webhookEventTypes, { error: `Each event must be one of ${webhookEventTypes.join(", ")}.` });

export const createEndpointBody = t.Object(
  {
    url: t.String({
      minLength: 1,
      maxLength: maxUrlLength,
      description: "http or https, no user name or password, reaching a public address (the policy of remote media).",
    }),
    events: t.Optional(t.Array(eventType, { maxItems: 16, description: "The types to receive; absent or empty: all four." })),
  },
  { additionalProperties: false },
);

const endpointFields = {
  id: t.String(),
  url: t.String(),
  events: t.Array(eventType),
  status: stringEnum(["enabled", "disabled"], { description: "disabled: deliveries kept failing (or the receiver answered 410 Gone)." }),
  disabled_reason: t.Nullable(t.String()),
  created_at: t.String(),
};

export const endpointView = t.Object(endpointFields);
export const createdEndpoint = t.Object({
  ...endpointFields,
  secret: t.String({ description: "`whsec_` and base64 of 32 random bytes: the Standard Webhooks signing secret. Shown in this answer only." }),
});

export const deliveryView = t.Object({
  message_id: t.String({ description: "The webhook-id header: the same on every attempt of a message." }),
  type: stringEnum([...webhookEventTypes, testEventType], { description: "task.finished, task.failed, task.deleted, export.ready or webhook.test" }),
  attempt: t.Integer({ description: "1 for the first attempt of the message." }),
  succeeded: t.Boolean(),
  status_code: t.Nullable(t.Integer({ description: "The receiver's HTTP status; null when none came (timeout, refused address, connection error)." })),
  duration_ms: t.Integer(),
  error: t.Nullable(t.String()),
  attempted_at: t.String(),
  next_attempt_at: t.Nullable(t.String({ description: "When the message is tried again; null when it is not." })),
});
export const deliveryList = t.Array(deliveryView, { description: `The latest ${deliveriesKept} attempts, newest first.` });

export const testResult = t.Object({
  message_id: t.String(),
  succeeded: t.Boolean(),
  status_code: t.Nullable(t.Integer()),
  duration_ms: t.Integer(),
  error: t.Nullable(t.String()),
});

export const endpointParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });
