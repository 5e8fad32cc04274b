import type { DomainEvent } from "./decider.ts";

/**
 * Who and what caused an event: carried on every event so analysts can follow a request through the log.
 * Exactly one actor: a user (`userId`) or a named part of the system (`system`).
 */
export type EventMetadata = {
  correlationId: string;
  causationId: string | null;
  /** The acting user's id; null when the system acted. */
  userId: number | null;
  /**
   * The part of the system that acted, null when a user did: a worker or job by its name (`task-slots`,
   * `monthly-allowance`, ...), `operator` for the admin CLI, `payment-provider` for a signed webhook.
   */
  system: string | null;
};

/** A user acted (a request with their token or key). */
export function byUser(userId: number, correlationId: string, causationId: string | null = null): EventMetadata {
  return { correlationId, causationId, userId, system: null };
}

/** A named part of the system acted on its own (a job, the operator CLI, a webhook). */
export function bySystem(system: string, correlationId: string, causationId: string | null = null): EventMetadata {
  return { correlationId, causationId, userId: null, system };
}

/** A worker's reaction to `cause`: in the same correlation, caused by it, acted by the worker. */
export function reactingTo(cause: Pick<RecordedEvent, "id" | "metadata">, worker: string): EventMetadata {
  return bySystem(worker, cause.metadata.correlationId, cause.id);
}

/** An event as a decider produces it, before the store gives it a place in the log. */
export type NewEvent<Type extends string = string, Data = unknown> = {
  /** Unique id; appending the same id twice stores it once (idempotent append). */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
};

/** An event as read back from the store. */
export type RecordedEvent<Type extends string = string, Data = unknown> = NewEvent<Type, Data> & {
  streamName: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Position in the one globally ordered log; strictly increasing, not necessarily contiguous. */
  position: number;
  /** When the store recorded it (ISO 8601, UTC). */
  time: string;
};

/**
 * A recorded event of the union `E`, each member with its own type and data, so a switch on `type` narrows
 * `data`. `Recorded<DomainEvent>` is any recorded event.
 */
export type Recorded<E extends DomainEvent> = E extends DomainEvent ? RecordedEvent<E["type"], E["data"]> : never;

/**
 * Whether a recorded event is one of the declared `types`, and so a member of the union they belong to: the one
 * way an event read from the log becomes typed. The store keeps only what the deciders appended (upcast on read),
 * so the type names the shape of the data.
 */
export function isOneOf<E extends DomainEvent>(types: readonly E["type"][]): (event: RecordedEvent) => event is Recorded<E> {
  const declared = new Set<string>(types);
  return (event): event is Recorded<E> => declared.has(event.type);
}

/** A stream name taken apart: `task-42` is category `task`, id `42`; a name without '-' is all category, id "". */
export type ParsedStreamName = { category: string; id: string };

/** The one parser of stream names (`<category>-<id>`; the id may hold '-' itself, as a UUID does). */
export function parseStreamName(streamName: string): ParsedStreamName {
  const dash = streamName.indexOf("-");
  return dash === -1 ? { category: streamName, id: "" } : { category: streamName.slice(0, dash), id: streamName.slice(dash + 1) };
}

/** The id part of a stream of `category` (`42` for `task-42`), or null when the stream is of another category. */
export function streamId(streamName: string, category: string): string | null {
  const parsed = parseStreamName(streamName);
  return parsed.category === category && parsed.id !== "" ? parsed.id : null;
}

/** The numeric id of a stream of `category` (42 for `task-42`), or null for another category or an id not all digits. */
export function numericStreamId(streamName: string, category: string): number | null {
  const id = streamId(streamName, category);
  return id !== null && /^\d+$/.test(id) ? Number(id) : null;
}

/** The part of a stream name before the first '-', e.g. `task` for `task-42`. */
export function streamCategory(streamName: string): string {
  return parseStreamName(streamName).category;
}
