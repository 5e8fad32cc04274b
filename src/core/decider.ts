/** An event as a decider emits it: a past-tense fact without store metadata. */
export type DomainEvent<Type extends string = string, Data = unknown> = { type: Type; data: Data };

/**
 * The pure heart of a stream: fold its events into state, and decide which new events a command
 * produces (or throw a DomainError). No I/O, clock or random ids: those come in with the command.
 */
export type Decider<State, Command, Event extends DomainEvent> = {
  initialState: () => State;
  /**
   * Folds one event into the state. A method, so that a model is also one over any event: the state cache folds
   * every event stored on the stream, and a decider on a shared stream skips the others' events by type.
   */
  evolve(state: State, event: Event): State;
  decide: (command: Command, state: State) => Event[];
  /**
   * For streams that grow with an account's age: its folded state is saved now and then under
   * `name@version`, and a load reads only the events after the newest save. Raise `version` when the
   * shape of the state changes, so older saves are ignored. The state must stay small (no history).
   */
  snapshot?: { name: string; version: number };
};

/** What a stream is folded with: a decider without its decide (the state is keyed by this object). */
export type StreamModel<State, Event extends DomainEvent> = Pick<Decider<State, never, Event>, "initialState" | "evolve" | "snapshot">;

export function fold<State, Event extends DomainEvent>(decider: Pick<Decider<State, never, Event>, "initialState" | "evolve">, events: Event[]): State {
  return events.reduce(decider.evolve, decider.initialState());
}

/** For the exhaustiveness check at the end of every switch over a tagged union. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value: ${JSON.stringify(value)}`);
}
