import type { EventStore } from "../core/event-store.ts";
import { isOneOf, type EventMetadata } from "../core/event.ts";
import { fold } from "../core/decider.ts";
import { handle } from "../core/command-handler.ts";
import { Leases } from "../core/lease.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import { endpointsDecider, type Endpoint } from "./decider.ts";
import { messageDecider, isSuccess, type MessageState } from "./message-decider.ts";
import {
  webhookEndpointEventTypes,
  webhookEndpointsStream,
  webhookMessageEventTypes,
  webhookMessageStream,
  type AttemptOutcome,
  type WebhookEndpointEvent,
  type WebhookMessageEvent,
} from "./events.ts";

const endpointEvents = isOneOf<WebhookEndpointEvent>(webhookEndpointEventTypes);
const messageEvents = isOneOf<WebhookMessageEvent>(webhookMessageEventTypes);
import { nextAttemptAt } from "./schedule.ts";
import { webhookHeaders } from "./signing.ts";
import { postMessage, type WebhookSettings } from "./sender.ts";

type Scheduled = Extract<WebhookMessageEvent, { type: "WebhookMessageScheduled" }>["data"];

/** The receiver asked to hear no more (Standard Webhooks: disable the endpoint). */
const gone = 410;

/**
 * Makes the attempts of messages: signs, posts, records the outcome on the message's stream, and
 * disables the endpoint when a message is given up. Used by the delivery worker (first attempts), the
 * retry job (the rest) and the test route. An attempt is made under a lease on its message, so two
 * processes (a redelivered first attempt and the retry job) do not post it at the same time.
 */
export class WebhookDelivery {
  private readonly leases: Leases;

  constructor(
    private readonly store: EventStore,
    db: DocumentStore,
    private readonly settings: WebhookSettings,
    private readonly now: () => Date = () => new Date(),
    private readonly random: () => number = Math.random,
  ) {
    this.leases = new Leases(db);
  }

  async endpointsOf(userId: number) {
    const events = await this.store.readStream(webhookEndpointsStream(userId));
    return fold(endpointsDecider, events.filter(endpointEvents));
  }

  private async message(messageId: string): Promise<MessageState> {
    return fold(messageDecider, (await this.store.readStream(webhookMessageStream(messageId))).filter(messageEvents));
  }

  /**
   * Makes the next attempt of a message if it is still pending and that attempt is wanted: the `first`
   * (by the delivery worker, at once) or the one now `due` by its schedule (by the retry job; the read
   * model it scanned may not show the latest outcome yet, the stream does). False when another process
   * holds the message.
   */
  async attempt(messageId: string, which: "first" | "due", metadata: EventMetadata): Promise<boolean> {
    const lease = `webhook-message:${messageId}`;
    if ((await this.leases.acquire(lease, this.settings.timeoutMs + 15_000)) === null) return false;
    try {
      const state = await this.message(messageId);
      if (state.status !== "pending") return true;
      if (which === "first" ? state.attempts > 0 : state.nextAttemptAt === null || state.nextAttemptAt > this.now().toISOString()) return true;
      // A message about a task reads "[erased]" once the task is deleted (src/erasure): there is nothing left to send.
      if (state.message.payload === "[erased]") {
        await this.run(messageId, { type: "CancelMessage", reason: "its task was deleted" }, metadata);
        return true;
      }
      const endpoint = (await this.endpointsOf(state.message.userId)).endpoints.get(state.message.endpointId);
      if (!endpoint || endpoint.disabled) {
        const reason = endpoint ? "the endpoint was disabled" : "the endpoint was deleted";
        await this.run(messageId, { type: "CancelMessage", reason }, metadata);
        return true;
      }
      await this.send(state.message, endpoint, state.attempts + 1, metadata);
      return true;
    } finally {
      await this.leases.release(lease).catch(() => undefined);
    }
  }

  /** Schedules a test message and makes its one attempt now. */
  async sendTest(message: Scheduled, endpoint: Endpoint, metadata: EventMetadata): Promise<AttemptOutcome> {
    await this.run(message.messageId, { type: "ScheduleMessage", message }, metadata);
    return this.send(message, endpoint, 1, metadata);
  }

  private async send(message: Scheduled, endpoint: Endpoint, attempt: number, metadata: EventMetadata): Promise<AttemptOutcome> {
    const at = this.now();
    const headers = webhookHeaders(endpoint.signingSecret, message.messageId, at, message.payload);
    const sent = await postMessage(endpoint.url, headers, message.payload, this.settings);
    const outcome: AttemptOutcome = { attempt, at: at.toISOString(), ...sent };
    const failedAt = new Date(at.getTime() + sent.durationMs);
    const retryAt =
      isSuccess(outcome) || message.test || sent.statusCode === gone ? null : nextAttemptAt(attempt, failedAt, this.settings.retryScheduleMs, this.random());
    await this.run(message.messageId, { type: "RecordAttempt", outcome, nextAttemptAt: retryAt }, metadata);
    if (!isSuccess(outcome) && retryAt === null && !message.test) {
      const reason =
        sent.statusCode === gone
          ? "the endpoint answered 410 Gone"
          : `a message could not be delivered in ${attempt} attempts over ${hoursOf(this.settings.retryScheduleMs)} (last: ${sent.error})`;
      await handle(
        this.store,
        webhookEndpointsStream(message.userId),
        endpointsDecider,
        (state) => endpointsDecider.decide({ type: "DisableEndpoint", endpointId: message.endpointId, reason, now: this.now().toISOString() }, state),
        { metadata },
      );
    }
    return outcome;
  }

  private run(messageId: string, command: Parameters<typeof messageDecider.decide>[0], metadata: EventMetadata) {
    return handle(this.store, webhookMessageStream(messageId), messageDecider, (state) => messageDecider.decide(command, state), { metadata });
  }
}

function hoursOf(scheduleMs: readonly number[]): string {
  const total = scheduleMs.reduce((sum, ms) => sum + ms, 0);
  return total >= 3_600_000 ? `${(total / 3_600_000).toFixed(1)} h` : `${Math.round(total / 1000)} s`;
}
