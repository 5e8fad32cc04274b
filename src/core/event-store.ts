import type { NewEvent, RecordedEvent } from "./event.ts";

/**
 * What the appender believes about the stream:
 * - `no_stream`: it must not exist yet;
 * - `any`: no check;
 * - a number: the revision of the stream's last event must be exactly this.
 */
export type ExpectedRevision = "no_stream" | "any" | number;

export type AppendResult = {
  /** Revision of the last event now in the stream. */
  nextRevision: number;
  /** Global position of the last appended event. */
  position: number;
};

/** The stream was not at the revision the appender expected: reload and decide again. */
export class WrongExpectedRevisionError extends Error {
  constructor(
    readonly streamName: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | "no_stream",
  ) {
    super(`stream ${streamName}: expected revision ${expected}, actual ${actual}`);
    this.name = "WrongExpectedRevisionError";
  }
}

export type Subscription = {
  /** Stops delivery; resolves when the handler in flight (if any) has returned. */
  stop(): Promise<void>;
  /** Resolves when the subscription ends (stopped) and rejects when it fails (handler threw, store broke). */
  readonly done: Promise<void>;
};

export type EventHandler = (event: RecordedEvent) => Promise<void> | void;

/**
 * The source of truth. Both adapters (SQLite, EventStoreDB) pass test/contracts/eventstore.contract.ts.
 */
export interface EventStore {
  append(streamName: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  /** The stream's events in order from `fromRevision` (default 0), at most `maxCount` (default all); [] when the stream does not exist. */
  readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  /** Events of the global log strictly after `after` (default: from the start), oldest first. */
  readAll(options?: { after?: number; limit?: number }): Promise<RecordedEvent[]>;
  /**
   * Delivers every event strictly after the checkpoint `after`, one at a time and in log order,
   * awaiting the handler before the next: first what is stored (catch-up), then each new event (live).
   */
  subscribe(options: { after?: number }, handler: EventHandler): Subscription;
  close(): Promise<void>;
}
