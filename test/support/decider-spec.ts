import { expect } from "bun:test";
import type { Decider, DomainEvent } from "../../src/core/decider.ts";

/**
 * given(events).when(command).then(events) for pure deciders:
 *   spec(decider).given([...]).when(cmd).then([...])
 *   spec(decider).given([...]).when(cmd).thenThrows(NotFoundError, /message/)
 */
export function deciderSpec<State, Command, Event extends DomainEvent>(decider: Decider<State, Command, Event>) {
  return {
    given(events: Event[]) {
      return {
        when(command: Command) {
          const run = () => decider.decide(command, events.reduce(decider.evolve, decider.initialState()));
          return {
            then(expected: Event[]) {
              expect(run()).toEqual(expected);
            },
            thenThrows(errorClass: new (...args: never[]) => Error, message?: RegExp) {
              let thrown: unknown = null;
              try {
                run();
              } catch (error) {
                thrown = error;
              }
              expect(thrown).toBeInstanceOf(errorClass);
              if (message) expect((thrown as Error).message).toMatch(message);
            },
          };
        },
      };
    },
  };
}
