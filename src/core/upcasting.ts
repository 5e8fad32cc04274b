import type { EventMetadata, RecordedEvent } from "./event.ts";
import type { EventStore } from "./event-store.ts";

/** Rewrites an event stored in an older shape into the current one; returns it unchanged when it is current. */
export type Upcaster = (event: RecordedEvent) => RecordedEvent;

/**
 * The store as everyone reads it: every event that comes out (read, read all, subscribed) is upcast, so
 * deciders, projections, workers and the analyst export only ever see the current shapes, and the log
 * itself is never rewritten.
 */
export function withUpcasting(store: EventStore, upcasters: readonly Upcaster[]): EventStore {
  const upcast = (event: RecordedEvent) => upcasters.reduce((current, upcaster) => upcaster(current), event);
  return {
    append: (streamName, events, options) => store.append(streamName, events, options),
    readStream: async (streamName, options) => (await store.readStream(streamName, options)).map(upcast),
    readAll: async (options) => (await store.readAll(options)).map(upcast),
    subscribe: (options, handler) => store.subscribe(options, (event) => handler(upcast(event))),
    close: () => store.close(),
  };
}

/** Actors written before they were named: a user id as a string, and no `system` when a worker or job acted. */
export const namedActor: Upcaster = (event) => {
  const metadata = event.metadata as Omit<EventMetadata, "userId" | "system"> & { userId: unknown; system?: unknown };
  if (typeof metadata.userId !== "string" && metadata.system !== undefined) return event;
  const userId =
    typeof metadata.userId === "number"
      ? metadata.userId
      : typeof metadata.userId === "string" && /^\d+$/.test(metadata.userId)
        ? Number(metadata.userId)
        : null;
  const system = typeof metadata.system === "string" ? metadata.system : userId === null ? "unrecorded" : null;
  return { ...event, metadata: { correlationId: metadata.correlationId, causationId: metadata.causationId, userId, system } };
};
