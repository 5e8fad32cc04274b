import type { EventMetadata } from "./event.ts";
import { stateCacheOf } from "./state-cache.ts";
import type { DomainEvent, StreamModel } from "./decider.ts";
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from "./event-store.ts";

export type CommandContext = {
  metadata: EventMetadata;
  /** Makes ids for the new events; random UUIDs unless a caller needs deterministic ones. */
  newEventId?: () => string;
};

export type CommandResult<State, Event extends DomainEvent> = {
  /** The events this command appended ([] when the decider had nothing to say). */
  events: Event[];
  /** The state after them. */
  state: State;
  /** Revision of the stream's last event, or -1 when the stream still does not exist. */
  revision: number;
  /** Global position of the last appended event, when anything was appended. */
  position: number | null;
};

const maxAttempts = 20;

/**
 * Load → evolve → decide → append with the expected revision; on a conflict someone else appended
 * first, so reload and decide again on the newer state. Loading reads only the events this process
 * has not folded yet (state-cache.ts), so a command costs the same on a stream of any length.
 *
 * The decision is a closure over the state, as in Emmett's `handle`: usually
 * `(state) => decider.decide(command, state)`, and it may throw a DomainError to refuse. It runs again
 * on every retry, so it must be pure. It is also given the revision of the state it decides on, so a
 * caller that made its change on a version it read (HTTP's `If-Match`) can refuse when the stream has moved
 * on: a writer that appends first makes the other's append conflict, whose retry then sees the newer revision.
 */
export async function handle<State, Event extends DomainEvent>(
  store: EventStore,
  streamName: string,
  model: StreamModel<State, Event>,
  decision: (state: State, revision: number) => Event[],
  context: CommandContext,
): Promise<CommandResult<State, Event>> {
  const newEventId = context.newEventId ?? (() => crypto.randomUUID());
  const states = stateCacheOf(store);
  for (let attempt = 1; ; attempt++) {
    const { state, revision } = await states.load(streamName, model);

    const events = decision(state, revision);
    if (events.length === 0) return { events, state, revision, position: null };

    const expectedRevision: ExpectedRevision = revision === -1 ? "no_stream" : revision;
    try {
      const appended = events.map((event) => ({ id: newEventId(), type: event.type, data: event.data, metadata: context.metadata }));
      const result = await store.append(streamName, appended, { expectedRevision });
      const after = events.reduce(model.evolve, state);
      states.remember(streamName, model, after, result.nextRevision, appended.at(-1)!.id);
      return { events, state: after, revision: result.nextRevision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
      // Spread retries out so a burst of writers on one stream does not collide in lockstep.
      await Bun.sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
  }
}
