import { assertNever, type Decider } from "../../src/core/decider.ts";
import { ConflictError } from "../../src/core/errors.ts";

/** A tiny decider that exercises the plumbing (command handling, projections) without a feature's rules. */
export type CounterEvent = { type: "CounterOpened"; data: { limit: number } } | { type: "CounterIncremented"; data: { by: number } };

export type CounterCommand = { type: "OpenCounter"; limit: number } | { type: "Increment"; by: number };

type CounterState = { status: "none" } | { status: "open"; value: number; limit: number };

export const counterDecider: Decider<CounterState, CounterCommand, CounterEvent> = {
  initialState: () => ({ status: "none" }),
  evolve(state, event) {
    switch (event.type) {
      case "CounterOpened":
        return { status: "open", value: 0, limit: event.data.limit };
      case "CounterIncremented":
        return state.status === "open" ? { ...state, value: state.value + event.data.by } : state;
      default:
        return assertNever(event);
    }
  },
  decide(command, state) {
    switch (command.type) {
      case "OpenCounter":
        return state.status === "none" ? [{ type: "CounterOpened", data: { limit: command.limit } }] : [];
      case "Increment":
        if (state.status !== "open") throw new ConflictError("counter is not open");
        if (state.value + command.by > state.limit) throw new ConflictError("limit reached");
        return [{ type: "CounterIncremented", data: { by: command.by } }];
      default:
        return assertNever(command);
    }
  },
};
