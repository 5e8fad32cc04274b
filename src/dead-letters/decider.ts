import { assertNever, type Decider } from "../core/decider.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import type { AffectedTask, DeadLetterEvent, DeadLetterReference } from "./events.ts";

/**
 * A dead letter's life: open (listed, waiting for the operator), retrying (its message is being handled again),
 * resolved (that worked) or dropped. A retry that fails on its last delivery opens it again.
 */
export type DeadLetterStatus = "open" | "retrying" | "resolved" | "dropped";

export type DeadLetterState = { status: "none" } | { status: DeadLetterStatus; reference: DeadLetterReference; occurrences: number };

export type DeadLetterCommand =
  | { type: "RecordDeadLetter"; reference: DeadLetterReference; deliveries: number; error: string; task: AffectedTask | null; now: string }
  | { type: "RetryDeadLetter"; now: string }
  | { type: "DropDeadLetter"; now: string }
  | { type: "ResolveDeadLetter"; now: string };

const reference = ({ deadLetterId, worker, eventId, eventType, stream, revision }: DeadLetterReference): DeadLetterReference => ({
  deadLetterId,
  worker,
  eventId,
  eventType,
  stream,
  revision,
});

/** What the operator may do with it now: retry and drop take an open one (drop also one being retried). */
function expectOpen(state: DeadLetterState, action: "retry" | "drop"): asserts state is Exclude<DeadLetterState, { status: "none" }> {
  if (state.status === "none") throw new NotFoundError("No such dead letter.");
  const allowed = action === "drop" ? ["open", "retrying"] : ["open"];
  if (!allowed.includes(state.status)) throw new ConflictError(`The dead letter ${state.reference.deadLetterId} is ${state.status}, not open.`);
}

export const deadLetterDecider: Decider<DeadLetterState, DeadLetterCommand, DeadLetterEvent> = {
  initialState: () => ({ status: "none" }),
  evolve(state, event) {
    switch (event.type) {
      case "MessageDeadLettered":
        return { status: "open", reference: reference(event.data), occurrences: event.data.occurrence };
      case "DeadLetterRetried":
        return state.status === "none" ? state : { ...state, status: "retrying" };
      case "DeadLetterResolved":
        return state.status === "none" ? state : { ...state, status: "resolved" };
      case "DeadLetterDropped":
        return state.status === "none" ? state : { ...state, status: "dropped" };
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "RecordDeadLetter": {
        // The same message failing again while its dead letter is open (another process's last delivery, a
        // redelivered retry): it is listed once.
        if (state.status === "open") return [];
        const { deliveries, error, task, now } = command;
        const occurrence = state.status === "none" ? 1 : state.occurrences + 1;
        return [{ type: "MessageDeadLettered", data: { ...reference(command.reference), deliveries, error, occurrence, task, at: now } }];
      }
      case "RetryDeadLetter":
        expectOpen(state, "retry");
        return [{ type: "DeadLetterRetried", data: { ...state.reference, at: command.now } }];
      case "DropDeadLetter":
        expectOpen(state, "drop");
        return [{ type: "DeadLetterDropped", data: { deadLetterId: state.reference.deadLetterId, at: command.now } }];
      case "ResolveDeadLetter":
        // Only a retry in flight resolves: a redelivered success after a drop or a new failure changes nothing.
        return state.status === "retrying" ? [{ type: "DeadLetterResolved", data: { deadLetterId: state.reference.deadLetterId, at: command.now } }] : [];
      default:
        return assertNever(command);
    }
  },
};
