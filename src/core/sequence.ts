import type { EventStore } from "./event-store.ts";

/** The one event of a `sequence-<name>` stream: its revision is the id it reserves. */
export type SequenceEvent = { type: "IdReserved"; data: Record<string, never> };

/**
 * Integer ids that stay unique across API replicas (spec 2.1 wants integer ids): each id is one
 * event appended to `sequence-<name>` with no revision check, and the store's own ordering of that
 * stream hands out 1, 2, 3... No read, no retry, no coordination beyond the store's append.
 */
export async function nextId(store: EventStore, name: string, correlationId: string): Promise<number> {
  const { nextRevision } = await store.append(
    `sequence-${name}`,
    [{ id: crypto.randomUUID(), type: "IdReserved", data: {}, metadata: { correlationId, causationId: null, userId: null, system: "sequence" } }],
    { expectedRevision: "any" },
  );
  return nextRevision + 1;
}
