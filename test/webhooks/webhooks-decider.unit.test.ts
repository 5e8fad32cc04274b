import { describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { deciderSpec } from "../support/decider-spec.ts";
import { NotFoundError, ValidationFailedError } from "../../src/core/errors.ts";
import { endpointsDecider, type EndpointCommand } from "../../src/webhooks/decider.ts";
import { messageDecider } from "../../src/webhooks/message-decider.ts";
import { maxEndpointsPerUser, type WebhookEndpointEvent, type WebhookMessageEvent } from "../../src/webhooks/events.ts";
import { defaultRetryScheduleSeconds, nextAttemptAt } from "../../src/webhooks/schedule.ts";
import { messageIdFor, newSigningSecret, webhookHeaders } from "../../src/webhooks/signing.ts";
import { exportedEvent } from "../../src/cli/event-export.ts";

const now = "2026-01-01T00:00:00.000Z";
const created = (endpointId: string): WebhookEndpointEvent => ({
  type: "WebhookEndpointCreated",
  data: { userId: 7, endpointId, url: "https://example.com/hook", events: ["task.finished"], signingSecret: "whsec_c2VjcmV0", createdAt: now },
});

describe("endpoints", () => {
  const spec = deciderSpec(endpointsDecider);
  const create = (endpointId: string): EndpointCommand => ({
    type: "CreateEndpoint",
    userId: 7,
    endpointId,
    url: "https://example.com/hook",
    events: ["task.finished"],
    signingSecret: "whsec_c2VjcmV0",
    now,
  });

  test("created", () =>
    spec
      .given([])
      .when(create("a"))
      .then([created("a")]));
  test("creating the same id again changes nothing", () =>
    spec
      .given([created("a")])
      .when(create("a"))
      .then([]));
  test(`at most ${maxEndpointsPerUser} per account`, () => {
    const ten = Array.from({ length: maxEndpointsPerUser }, (_, i) => created(`e${i}`));
    spec
      .given(ten)
      .when(create("b"))
      .thenThrows(ValidationFailedError, /at most 10/);
    spec
      .given([...ten, { type: "WebhookEndpointDeleted", data: { userId: 7, endpointId: "e0" } }])
      .when(create("b"))
      .then([created("b")]);
  });
  test("deleted; a missing one (or another account's: not on this stream) is not found", () => {
    spec
      .given([created("a")])
      .when({ type: "DeleteEndpoint", endpointId: "a" })
      .then([{ type: "WebhookEndpointDeleted", data: { userId: 7, endpointId: "a" } }]);
    spec
      .given([created("a")])
      .when({ type: "DeleteEndpoint", endpointId: "b" })
      .thenThrows(NotFoundError);
    spec.given([]).when({ type: "DeleteEndpoint", endpointId: "a" }).thenThrows(NotFoundError);
  });
  test("disabled once, with the reason; a second failure or a deleted endpoint changes nothing", () => {
    const disable: EndpointCommand = { type: "DisableEndpoint", endpointId: "a", reason: "kept failing", now };
    const disabled: WebhookEndpointEvent = {
      type: "WebhookEndpointDisabled",
      data: { userId: 7, endpointId: "a", url: "https://example.com/hook", reason: "kept failing", disabledAt: now },
    };
    spec
      .given([created("a")])
      .when(disable)
      .then([disabled]);
    spec
      .given([created("a"), disabled])
      .when(disable)
      .then([]);
    spec
      .given([created("a"), { type: "WebhookEndpointDeleted", data: { userId: 7, endpointId: "a" } }])
      .when(disable)
      .then([]);
  });
  test("enabled again once disabled; one already enabled stays as it is; a missing or deleted one is not found", () => {
    const disabled: WebhookEndpointEvent = {
      type: "WebhookEndpointDisabled",
      data: { userId: 7, endpointId: "a", url: "https://example.com/hook", reason: "kept failing", disabledAt: now },
    };
    const enable: EndpointCommand = { type: "EnableEndpoint", endpointId: "a", now };
    const enabled: WebhookEndpointEvent = { type: "WebhookEndpointEnabled", data: { userId: 7, endpointId: "a", enabledAt: now } };
    spec
      .given([created("a"), disabled])
      .when(enable)
      .then([enabled]);
    spec
      .given([created("a"), disabled, enabled])
      .when(enable)
      .then([]);
    spec
      .given([created("a"), disabled, enabled])
      .when({ type: "DisableEndpoint", endpointId: "a", reason: "kept failing", now })
      .then([disabled]);
    spec
      .given([created("a")])
      .when(enable)
      .then([]);
    spec
      .given([created("a"), disabled, { type: "WebhookEndpointDeleted", data: { userId: 7, endpointId: "a" } }])
      .when(enable)
      .thenThrows(NotFoundError);
    spec.given([]).when(enable).thenThrows(NotFoundError);
  });
});

describe("messages", () => {
  const spec = deciderSpec(messageDecider);
  const message = {
    userId: 7,
    endpointId: "a",
    messageId: "msg_1",
    eventType: "task.finished" as const,
    payload: "{}",
    test: false,
    scheduledAt: now,
    nextAttemptAt: "2026-01-01T00:01:00.000Z",
  };
  const scheduled: WebhookMessageEvent = { type: "WebhookMessageScheduled", data: message };
  const ids = { userId: 7, endpointId: "a", messageId: "msg_1", eventType: "task.finished" as const };
  const outcome = (attempt: number, statusCode: number | null) => ({ attempt, at: now, statusCode, durationMs: 12, error: statusCode === 200 ? null : "boom" });
  const failed = (attempt: number, next: string | null): WebhookMessageEvent => ({
    type: "WebhookAttemptFailed",
    data: { ...ids, ...outcome(attempt, 500), nextAttemptAt: next },
  });

  test("scheduled once: a redelivered task event schedules nothing more", () => {
    spec.given([]).when({ type: "ScheduleMessage", message }).then([scheduled]);
    spec.given([scheduled]).when({ type: "ScheduleMessage", message }).then([]);
  });
  test("a 2xx is delivered; anything else is a failed attempt with its next time", () => {
    spec
      .given([scheduled])
      .when({ type: "RecordAttempt", outcome: outcome(1, 200), nextAttemptAt: null })
      .then([{ type: "WebhookMessageDelivered", data: { ...ids, ...outcome(1, 200) } }]);
    spec
      .given([scheduled])
      .when({ type: "RecordAttempt", outcome: outcome(1, 500), nextAttemptAt: "later" })
      .then([failed(1, "later")]);
    spec
      .given([scheduled])
      .when({ type: "RecordAttempt", outcome: outcome(1, null), nextAttemptAt: "later" })
      .then([{ type: "WebhookAttemptFailed", data: { ...ids, ...outcome(1, null), nextAttemptAt: "later" } }]);
  });
  test("only the next attempt of a pending message is recorded (another process got there first)", () => {
    spec
      .given([scheduled, failed(1, "later")])
      .when({ type: "RecordAttempt", outcome: outcome(1, 200), nextAttemptAt: null })
      .then([]);
    spec
      .given([scheduled, failed(1, null)])
      .when({ type: "RecordAttempt", outcome: outcome(2, 200), nextAttemptAt: null })
      .then([]);
    spec
      .given([])
      .when({ type: "RecordAttempt", outcome: outcome(1, 200), nextAttemptAt: null })
      .then([]);
  });
  test("cancelled only while pending", () => {
    spec
      .given([scheduled, failed(1, "later")])
      .when({ type: "CancelMessage", reason: "the endpoint was deleted" })
      .then([{ type: "WebhookMessageCancelled", data: { userId: 7, endpointId: "a", messageId: "msg_1", reason: "the endpoint was deleted" } }]);
    spec
      .given([scheduled, { type: "WebhookMessageDelivered", data: { ...ids, ...outcome(1, 200) } }])
      .when({ type: "CancelMessage", reason: "x" })
      .then([]);
  });
});

describe("the retry schedule", () => {
  const ms = defaultRetryScheduleSeconds.map((s) => s * 1000);
  const at = new Date(now);
  test("the first retry within 10 s, then growing, at least 24 hours in all, then given up", () => {
    for (const random of [0, 0.5, 0.999]) expect(Date.parse(nextAttemptAt(1, at, ms, random)!) - at.getTime()).toBeLessThanOrEqual(10_000);
    const delays = ms.map((_, i) => Date.parse(nextAttemptAt(i + 1, at, ms, 0.5)!) - at.getTime());
    for (let i = 1; i < delays.length; i++) expect(delays[i]!).toBeGreaterThanOrEqual(delays[i - 1]!);
    expect(delays.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(24 * 3_600_000);
    expect(nextAttemptAt(ms.length + 1, at, ms, 0.5)).toBeNull();
  });
  test("jitter stays within ±10 %", () => {
    expect(Date.parse(nextAttemptAt(2, at, ms, 0)!) - at.getTime()).toBe(270_000);
    expect(Date.parse(nextAttemptAt(2, at, ms, 0.5)!) - at.getTime()).toBe(300_000);
  });
});

describe("signing, checked by the standardwebhooks package", () => {
  test("a message signed with a new secret verifies; a changed body, id or secret does not", () => {
    const secret = newSigningSecret();
    expect(secret).toMatch(/^whsec_/);
    const key = Buffer.from(secret.slice(6), "base64");
    expect(key.length).toBeGreaterThanOrEqual(24);
    expect(key.length).toBeLessThanOrEqual(64);
    const body = JSON.stringify({ type: "task.finished", timestamp: now, data: { task: { id: 1, name: "ünïcödé ✓" } } });
    const headers = webhookHeaders(secret, "msg_abc", new Date(), body);
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(secret).verify(`${body} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body, { ...headers, "webhook-id": "msg_abd" })).toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });
  test("message ids are the same for the same event and endpoint, different otherwise, and carry no '.'", () => {
    expect(messageIdFor("e1", "a")).toBe(messageIdFor("e1", "a"));
    expect(messageIdFor("e1", "a")).not.toBe(messageIdFor("e1", "b"));
    expect(messageIdFor("e1", "a")).toMatch(/^msg_[0-9a-f]{32}$/);
  });
});

test("the analyst export (`bun run events`) redacts the signing secret", () => {
  const event = {
    ...created("a"),
    id: "e1",
    metadata: { correlationId: "c", causationId: null, userId: 7, system: null },
    streamName: "webhooks-7",
    revision: 0,
    position: 1,
    time: now,
  };
  const exported = exportedEvent(event, { includeSecrets: false, pseudonymKey: "k" });
  expect(JSON.stringify(exported)).not.toContain("whsec_c2VjcmV0");
  expect((exported.data as { signingSecret: string }).signingSecret).toBe("[redacted]");
});
