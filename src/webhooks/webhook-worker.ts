import { reactingTo } from "../core/event.ts";
import type { EventStore } from "../core/event-store.ts";
import { handle } from "../core/command-handler.ts";
import type { Worker } from "../core/worker.ts";
import { messageDecider } from "./message-decider.ts";
import { webhookMessageStream, type WebhookMessageEvent } from "./events.ts";
import type { TaskEvent } from "../tasks/events.ts";
import { taskAt, webhookPayload, webhookTypeOf } from "./payload.ts";
import { messageIdFor } from "./signing.ts";
import type { WebhookDelivery } from "./delivery.ts";

type Cause = Extract<TaskEvent, { type: "TaskFinished" | "TaskFailed" | "TaskDeleted" | "ExportGenerated" }>;

/**
 * The process manager from task events to messages: on TaskFinished, TaskFailed, TaskDeleted and
 * ExportGenerated it schedules one message (`webhookmessage-<id>`) per enabled endpoint of the task's
 * owner subscribed to that type. The message id is derived from the event and the endpoint, so a
 * redelivered event finds its messages scheduled and adds none.
 */
export function webhookWorker(store: EventStore, delivery: WebhookDelivery, firstAttemptGraceMs: number): Worker<Cause> {
  return {
    name: "webhooks",
    subject: "scribe.task.>",
    eventTypes: ["TaskFinished", "TaskFailed", "TaskDeleted", "ExportGenerated"],
    async handle(cause) {
      const type = webhookTypeOf[cause.type];
      // Events stored before every task event carried its owner are upcast on read; one without is left alone.
      const userId: unknown = cause.data.userId;
      if (!type || typeof userId !== "number") return;
      const subscribed = [...(await delivery.endpointsOf(userId)).endpoints].filter(([, e]) => !e.disabled && e.events.includes(type));
      if (subscribed.length === 0) return;
      const task = taskAt(await store.readStream(cause.streamName), cause);
      if (!task) return;
      const payload = webhookPayload(type, cause, task);
      const scheduledAt = new Date();
      for (const [endpointId] of subscribed) {
        const messageId = messageIdFor(cause.id, endpointId);
        const message = {
          userId,
          endpointId,
          messageId,
          eventType: type,
          payload,
          test: false,
          scheduledAt: scheduledAt.toISOString(),
          nextAttemptAt: new Date(scheduledAt.getTime() + firstAttemptGraceMs).toISOString(),
        };
        await handle(store, webhookMessageStream(messageId), messageDecider, (state) => messageDecider.decide({ type: "ScheduleMessage", message }, state), {
          metadata: reactingTo(cause, "webhooks"),
        });
      }
    },
  };
}

/** Makes the first attempt of each scheduled message as soon as it is scheduled; the retry job makes the others. */
export function webhookDeliveryWorker(delivery: WebhookDelivery, timeoutMs: number): Worker<Extract<WebhookMessageEvent, { type: "WebhookMessageScheduled" }>> {
  return {
    name: "webhook-delivery",
    subject: "scribe.webhookmessage.WebhookMessageScheduled",
    eventTypes: ["WebhookMessageScheduled"],
    ackWaitMs: timeoutMs + 60_000,
    async handle(scheduled) {
      const { data } = scheduled;
      if (data.test) return; // its request makes its one attempt
      await delivery.attempt(data.messageId, "first", reactingTo(scheduled, "webhook-delivery"));
    },
  };
}
