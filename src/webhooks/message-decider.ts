import { assertNever, type Decider } from "../core/decider.ts";
import type { AttemptOutcome, WebhookMessageEvent } from "./events.ts";

type Scheduled = Extract<WebhookMessageEvent, { type: "WebhookMessageScheduled" }>["data"];

/** A message's life: none yet, waiting for an attempt, or settled (delivered, given up, cancelled). */
export type MessageState =
  | { status: "none" }
  | { status: "pending"; message: Scheduled; attempts: number; nextAttemptAt: string | null }
  | { status: "delivered" | "failed" | "cancelled"; message: Scheduled; attempts: number; nextAttemptAt: null };

export type MessageCommand =
  | { type: "ScheduleMessage"; message: Scheduled }
  /** `nextAttemptAt` (on a failure): when to try again, or null to give up. */
  | { type: "RecordAttempt"; outcome: AttemptOutcome; nextAttemptAt: string | null }
  | { type: "CancelMessage"; reason: string };

export const isSuccess = (outcome: AttemptOutcome) => outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;

export const messageDecider: Decider<MessageState, MessageCommand, WebhookMessageEvent> = {
  initialState: () => ({ status: "none" }),
  evolve(state, event) {
    switch (event.type) {
      case "WebhookMessageScheduled":
        return { status: "pending", message: event.data, attempts: 0, nextAttemptAt: event.data.nextAttemptAt };
      case "WebhookMessageDelivered":
        return state.status === "none" ? state : { ...state, status: "delivered", attempts: event.data.attempt, nextAttemptAt: null };
      case "WebhookAttemptFailed": {
        if (state.status === "none") return state;
        const { attempt, nextAttemptAt } = event.data;
        return nextAttemptAt === null
          ? { ...state, status: "failed", attempts: attempt, nextAttemptAt }
          : { ...state, status: "pending", attempts: attempt, nextAttemptAt };
      }
      case "WebhookMessageCancelled":
        return state.status === "none" ? state : { ...state, status: "cancelled", nextAttemptAt: null };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "ScheduleMessage":
        // The same message scheduled again (a redelivered task event): it exists already.
        return state.status === "none" ? [{ type: "WebhookMessageScheduled", data: command.message }] : [];
      case "RecordAttempt": {
        // Only the next attempt of a pending message counts: another process that recorded this attempt first wins.
        if (state.status !== "pending" || command.outcome.attempt !== state.attempts + 1) return [];
        const { userId, endpointId, messageId, eventType } = state.message;
        const ids = { userId, endpointId, messageId, eventType };
        if (isSuccess(command.outcome)) return [{ type: "WebhookMessageDelivered", data: { ...ids, ...command.outcome } }];
        return [{ type: "WebhookAttemptFailed", data: { ...ids, ...command.outcome, nextAttemptAt: command.nextAttemptAt } }];
      }
      case "CancelMessage": {
        if (state.status !== "pending") return [];
        const { userId, endpointId, messageId } = state.message;
        return [{ type: "WebhookMessageCancelled", data: { userId, endpointId, messageId, reason: command.reason } }];
      }
      default:
        return assertNever(command);
    }
  },
};
