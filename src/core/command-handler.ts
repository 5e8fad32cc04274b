import type { EventMetadata, RecordedEvent } from "./event.ts";
import type { Decider, DomainEvent } from "./decider.ts";
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from "../eventstore/port.ts";

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
 * first, so reload and decide again on the newer state.
 */
export async function handleCommand<State, Command, Event extends DomainEvent>(
  store: EventStore,
  streamName: string,
  decider: Decider<State, Command, Event>,
  command: Command,
  context: CommandContext,
): Promise<CommandResult<State, Event>> {
  const newEventId = context.newEventId ?? (() => crypto.randomUUID());
  for (let attempt = 1; ; attempt++) {
    const recorded = (await store.readStream(streamName)) as RecordedEvent[];
    let state = decider.initialState();
    for (const event of recorded) state = decider.evolve(state, event as unknown as Event);
    const revision = recorded.length === 0 ? -1 : recorded[recorded.length - 1]!.revision;

    const events = decider.decide(command, state);
    if (events.length === 0) return { events, state, revision, position: null };

    const expectedRevision: ExpectedRevision = revision === -1 ? "no_stream" : revision;
    try {
      const result = await store.append(
        streamName,
        events.map((event) => ({ id: newEventId(), type: event.type, data: event.data, metadata: context.metadata })),
        { expectedRevision },
      );
      return { events, state: events.reduce(decider.evolve, state), revision: result.nextRevision, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError) || attempt >= maxAttempts) throw error;
      // Spread retries out so a burst of writers on one stream does not collide in lockstep.
      await Bun.sleep(Math.random() * Math.min(50, 2 ** attempt));
    }
  }
}
