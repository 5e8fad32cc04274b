/** Who and what caused an event: carried on every event so analysts can follow a request through the log. */
export type EventMetadata = {
  correlationId: string;
  causationId: string | null;
  /** The acting user's id, or null for the system (workers, operator CLI without a user). */
  userId: string | null;
};

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
