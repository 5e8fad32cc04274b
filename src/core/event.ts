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

/** The part of a stream name before the first '-', e.g. `task` for `task-42`. */
export function streamCategory(streamName: string): string {
  const dash = streamName.indexOf("-");
  return dash === -1 ? streamName : streamName.slice(0, dash);
}
