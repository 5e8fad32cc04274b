import { assertNever, type Decider } from "../core/decider.ts";
import { NotFoundError, ValidationFailedError } from "../core/errors.ts";
import { retentionDaysError } from "../accounts/schemas.ts";
import type { RetentionEvent } from "./events.ts";
import { mayWarn, noRetention, warnedThrough, type RetentionState } from "./policy.ts";

export type RetentionCommand =
  /** `maxDays`: RETENTION_MAX_DAYS, checked again here (the request's schema checks it first). */
  | { type: "SetRetention"; days: number | null; maxDays: number; now: string }
  /** The job's plan (policy.ts), decided again on the stream as it is now: a second job run at once adds nothing. */
  | { type: "WarnOfDeletion"; userId: number; days: number; taskCount: number; createdThrough: string; deleteAfter: string; now: string };

/** The account's registration and erasure, the account facts the model folds (by shape: accounts own them). */
export type AccountLifecycle = { type: "UserRegistered"; data: unknown } | { type: "AccountErased"; data: unknown };

/** What the model folds from the account's stream: its own events, the registration and the erasure. */
export type RetentionStreamEvent = RetentionEvent | AccountLifecycle;

/**
 * The account's retention, decided on its stream `user-<id>` (through the accounts' commands, as folders are): the
 * stream is shared, so the model folds its own events and the registration, and skips the rest.
 */
export const retentionDecider: Decider<RetentionState, RetentionCommand, RetentionStreamEvent> = {
  snapshot: { name: "retention", version: 1 },
  initialState: () => noRetention,
  evolve(state, e) {
    switch (e.type) {
      case "UserRegistered":
        return { ...state, registered: true };
      // Its tasks are gone with it (src/erasure): nothing is left to keep or delete.
      case "AccountErased":
        return noRetention;
      // A new retention moves every task's end: what was announced under the old one no longer counts.
      case "RetentionSet":
        return { ...state, days: e.data.days, maturedThrough: null, latest: null };
      // Warnings are a day apart at least, so the one before this has matured.
      case "RetentionWarningGiven":
        return { ...state, maturedThrough: warnedThrough(state), latest: { createdThrough: e.data.createdThrough, deleteAfter: e.data.deleteAfter } };
      default:
        return state;
    }
  },
  decide(command, state): RetentionEvent[] {
    if (!state.registered) throw new NotFoundError("User not found.");
    switch (command.type) {
      case "SetRetention": {
        const { days, maxDays, now } = command;
        if (days !== null && !(Number.isSafeInteger(days) && days >= 1 && days <= maxDays))
          throw new ValidationFailedError({ retention_days: [retentionDaysError(maxDays)] });
        if (days === state.days) return [];
        return [{ type: "RetentionSet", data: { days, previousDays: state.days, setAt: now } }];
      }
      case "WarnOfDeletion": {
        const { userId, days, taskCount, createdThrough, deleteAfter, now } = command;
        const announced = warnedThrough(state);
        if (state.days !== days || !mayWarn(state, new Date(now)) || (announced !== null && createdThrough <= announced)) return [];
        return [{ type: "RetentionWarningGiven", data: { userId, days, taskCount, createdThrough, deleteAfter, warnedAt: now } }];
      }
      default:
        return assertNever(command);
    }
  },
};
