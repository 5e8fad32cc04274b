import { describe, test } from "bun:test";
import { projectionSpec } from "../support/projection-spec.ts";
import { webhookEndpointsProjection } from "../../src/webhooks/endpoints-projection.ts";
import { deliveriesKept, webhookDeliveriesProjection } from "../../src/webhooks/deliveries-projection.ts";

const at = "2026-01-01T00:00:00.000Z";
const endpoint = { userId: 7, endpointId: "a", url: "https://example.com/hook", events: ["task.finished"], signingSecret: "whsec_c2VjcmV0", createdAt: at };
const scheduled = (messageId: string, test = false) => ({
  streamName: `webhookmessage-${messageId}`,
  type: "WebhookMessageScheduled",
  data: {
    userId: 7,
    endpointId: "a",
    messageId,
    eventType: "task.finished",
    payload: "{}",
    test,
    scheduledAt: at,
    nextAttemptAt: test ? null : "2026-01-01T00:01:00.000Z",
  },
});
const ids = (messageId: string) => ({ userId: 7, endpointId: "a", messageId, eventType: "task.finished" });
const failed = (messageId: string, attempt: number, next: string | null) => ({
  streamName: `webhookmessage-${messageId}`,
  type: "WebhookAttemptFailed",
  data: { ...ids(messageId), attempt, at, statusCode: 500, durationMs: 9, error: "the endpoint answered 500", nextAttemptAt: next },
});
const delivered = (messageId: string, attempt: number) => ({
  streamName: `webhookmessage-${messageId}`,
  type: "WebhookMessageDelivered",
  data: { ...ids(messageId), attempt, at, statusCode: 204, durationMs: 5, error: null },
});

describe("webhook_endpoints", () => {
  test("created, disabled with the reason, never the secret", () =>
    projectionSpec(webhookEndpointsProjection)
      .given([
        { streamName: "webhooks-7", type: "WebhookEndpointCreated", data: endpoint },
        { streamName: "webhooks-7", type: "WebhookEndpointDisabled", data: { userId: 7, endpointId: "a", url: endpoint.url, reason: "gone", disabledAt: at } },
      ])
      .then({
        webhook_endpoints: [
          { _id: "a", id: "a", userId: 7, url: endpoint.url, events: ["task.finished"], status: "disabled", disabledReason: "gone", createdAt: at },
        ],
      }));
  test("enabled again: enabled, the reason gone", () =>
    projectionSpec(webhookEndpointsProjection)
      .given([
        { streamName: "webhooks-7", type: "WebhookEndpointCreated", data: endpoint },
        { streamName: "webhooks-7", type: "WebhookEndpointDisabled", data: { userId: 7, endpointId: "a", url: endpoint.url, reason: "gone", disabledAt: at } },
        { streamName: "webhooks-7", type: "WebhookEndpointEnabled", data: { userId: 7, endpointId: "a", enabledAt: at } },
      ])
      .then({
        webhook_endpoints: [
          { _id: "a", id: "a", userId: 7, url: endpoint.url, events: ["task.finished"], status: "enabled", disabledReason: null, createdAt: at },
        ],
      }));
  test("deleted", () =>
    projectionSpec(webhookEndpointsProjection)
      .given([
        { streamName: "webhooks-7", type: "WebhookEndpointCreated", data: endpoint },
        { streamName: "webhooks-7", type: "WebhookEndpointDeleted", data: { userId: 7, endpointId: "a" } },
      ])
      .then({ webhook_endpoints: [] }));
});

describe("webhook_messages and webhook_deliveries", () => {
  test("a pending message waits with its next attempt time; attempts are listed newest first; a settled message leaves the queue", () =>
    projectionSpec(webhookDeliveriesProjection)
      .given([scheduled("m1"), failed("m1", 1, "2026-01-01T00:00:05.000Z"), scheduled("m2"), failed("m2", 1, null), scheduled("m3"), delivered("m3", 1)])
      .then({
        webhook_messages: [{ _id: "m1", messageId: "m1", attempts: 1, nextAttemptAt: "2026-01-01T00:00:05.000Z" }],
        webhook_deliveries: [
          {
            _id: "a",
            attempts: [
              { message_id: "m3", attempt: 1, succeeded: true, status_code: 204, error: null, next_attempt_at: null },
              { message_id: "m2", attempt: 1, succeeded: false, status_code: 500, next_attempt_at: null },
              {
                message_id: "m1",
                attempt: 1,
                succeeded: false,
                status_code: 500,
                error: "the endpoint answered 500",
                next_attempt_at: "2026-01-01T00:00:05.000Z",
              },
            ],
          },
        ],
      }));
  test("a test message never waits in the queue", () =>
    projectionSpec(webhookDeliveriesProjection)
      .given([scheduled("t", true), delivered("t", 1)])
      .then({ webhook_messages: [] }));
  test(`only the latest ${deliveriesKept} attempts are kept`, () => {
    const events = Array.from({ length: deliveriesKept + 5 }, (_, i) => [scheduled(`m${i}`), delivered(`m${i}`, 1)]).flat();
    return projectionSpec(webhookDeliveriesProjection)
      .given(events)
      .then({
        webhook_deliveries: [{ _id: "a", attempts: Array.from({ length: deliveriesKept }, (_, i) => ({ message_id: `m${deliveriesKept + 4 - i}` })) }],
      });
  });
  test("a deleted endpoint's attempts go, and late ones are not shown", () =>
    projectionSpec(webhookDeliveriesProjection)
      .given([
        scheduled("m1"),
        failed("m1", 1, "2026-01-01T00:00:05.000Z"),
        { streamName: "webhooks-7", type: "WebhookEndpointDeleted", data: { userId: 7, endpointId: "a" } },
        failed("m1", 2, "2026-01-01T00:05:05.000Z"),
      ])
      .then({ webhook_deliveries: [{ _id: "a", deleted: true, attempts: [] }] }));
});
