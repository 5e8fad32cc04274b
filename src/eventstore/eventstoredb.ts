import {
  ANY,
  EventStoreDBClient,
  excludeSystemEvents,
  FORWARDS,
  jsonEvent,
  NO_STREAM,
  START,
  streamNameFilter,
  StreamNotFoundError,
  WrongExpectedVersionError,
  type AllStreamRecordedEvent,
  type AppendExpectedRevision,
  type Filter,
  type JSONType,
  type Position,
  type ReadPosition,
  type RecordedEvent as EsdbRecordedEvent,
} from "@eventstore/db-client";
import type { EventMetadata, NewEvent, RecordedEvent } from "../core/event.ts";
import { skipForeignEvent } from "../core/foreign-events.ts";
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventHandler,
  type EventStore,
  type ExpectedRevision,
  type Subscription,
} from "../core/event-store.ts";
import { assertEventSizes } from "./event-size.ts";
import { resubscribing, type FeedSource } from "./resubscribe.ts";

const READ_ALL_PAGE = 500;

/**
 * What a subscription to $all asks the server for: only the streams that begin with one of `prefixes` (this
 * application's, in a shared EventStoreDB), else every event but the system's. A filter is on stream names or on
 * event types, not both: system events ($metadata and the like) live in `$`-streams, which no prefix of ours
 * matches, and any that remain (`$`-typed events in our streams) are dropped on arrival.
 */
export function allStreamFilter(prefixes: readonly string[] | null): Filter {
  return prefixes ? streamNameFilter({ prefixes: [...prefixes] }) : excludeSystemEvents();
}

export type EventStoreDbOptions = {
  /** The beginnings of the streams this application writes (src/application-streams.ts); absent: every stream. */
  streamPrefixes?: readonly string[];
};

/**
 * The cluster event store. Our `position` is the event's commit position in $all: since EventStoreDB 20
 * every appended event has its own (commit = prepare), so positions are distinct and increasing, and
 * `{ commit: p, prepare: p }` is a valid place to resume from.
 */
export class EventStoreDbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private readonly prefixes: readonly string[] | null;

  constructor(connectionString: string, options: EventStoreDbOptions = {}) {
    this.client = EventStoreDBClient.connectionString(connectionString);
    this.prefixes = options.streamPrefixes ?? null;
  }

  /** Whether the relay and projections read `streamName`: one of this application's streams (all when none are named). */
  private ours(streamName: string): boolean {
    return this.prefixes === null || this.prefixes.some((prefix) => streamName.startsWith(prefix));
  }

  async append(streamName: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`append to ${streamName}: no events`);
    // An event no subscription would ever deliver: a stream family missing from the application's prefixes.
    if (!this.ours(streamName)) throw new Error(`append to ${streamName}: not one of this application's streams (${this.prefixes?.join(", ")})`);
    assertEventSizes(streamName, events);
    const expected = options.expectedRevision;
    let result: Awaited<ReturnType<EventStoreDBClient["appendToStream"]>>;
    try {
      result = await this.client.appendToStream(
        streamName,
        events.map((e) => jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: e.metadata })),
        { expectedRevision: toEsdbExpected(expected) },
      );
    } catch (error) {
      if (error instanceof WrongExpectedVersionError) {
        const actual = error.actualVersion === NO_STREAM ? "no_stream" : Number(error.actualVersion);
        throw new WrongExpectedRevisionError(streamName, expected, actual);
      }
      throw error;
    }
    const nextRevision = Number(result.nextExpectedRevision);
    // An idempotent replay of a stored batch answers without a position: take it from the stored last event.
    const position = result.position ? Number(result.position.commit) : await this.positionOf(streamName, nextRevision);
    return { nextRevision, position };
  }

  private async positionOf(streamName: string, revision: number): Promise<number> {
    for await (const resolved of this.client.readStream(streamName, { fromRevision: BigInt(revision), maxCount: 1 })) {
      if (resolved.event) return logPosition(resolved.event);
    }
    throw new Error(`append to ${streamName}: revision ${revision} not found after append`);
  }

  async readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]> {
    const from = options?.fromRevision ?? 0;
    const events: RecordedEvent[] = [];
    try {
      const read = this.client.readStream(streamName, {
        fromRevision: from === 0 ? START : BigInt(from),
        direction: FORWARDS,
        ...(options?.maxCount !== undefined && { maxCount: options.maxCount }),
      });
      for await (const resolved of read) {
        const event = resolved.event && toRecordedOrSkip(resolved.event);
        if (event) events.push(event);
      }
    } catch (error) {
      if (error instanceof StreamNotFoundError) return [];
      throw error;
    }
    return events;
  }

  async readAll(options?: { after?: number; limit?: number }): Promise<RecordedEvent[]> {
    const after = options?.after;
    const limit = options?.limit ?? Infinity;
    const events: RecordedEvent[] = [];
    // readAll in this client has no server-side filter: page through $all and drop system events and other
    // applications' streams here.
    let cursor: ReadPosition = after === undefined ? START : at(after);
    for (;;) {
      let seen = 0;
      let last: Position | null = null;
      const page = this.client.readAll({ fromPosition: cursor, maxCount: READ_ALL_PAGE, direction: FORWARDS });
      for await (const resolved of page) {
        seen += 1;
        const event: AllStreamRecordedEvent | undefined = resolved.event;
        if (!event) continue;
        last = event.position;
        // Reading from a position includes the event at it; `after` and page cursors are exclusive.
        if (typeof cursor === "object" && !isAfter(event.position, cursor)) continue;
        if (event.type.startsWith("$") || !this.ours(event.streamId) || events.length >= limit) continue;
        const recorded = toRecordedOrSkip(event);
        if (recorded) events.push(recorded);
      }
      if (seen < READ_ALL_PAGE || events.length >= limit || !last) return events;
      cursor = last;
    }
  }

  /**
   * Catch-up then live, through resubscribing(): a dropped gRPC stream (server restart, leader change,
   * network reset, keep-alive timeout) is opened again from the last event handled, with back-off.
   */
  subscribe(options: { after?: number }, handler: EventHandler): Subscription {
    const open = (after: number | undefined): FeedSource => {
      const stream = this.client.subscribeToAll({ fromPosition: after === undefined ? START : at(after), filter: allStreamFilter(this.prefixes) });
      // for await pulls one event at a time, so a slow handler holds back the gRPC stream (back-pressure).
      const ours = (streamName: string) => this.ours(streamName);
      async function* events(): AsyncIterable<RecordedEvent> {
        for await (const resolved of stream) {
          const event = resolved.event;
          if (!event || event.type.startsWith("$") || !ours(event.streamId)) continue;
          // Another application's event that is not JSON is skipped (and counted), not a halt at its position.
          const recorded = toRecordedOrSkip(event);
          if (recorded) yield recorded;
        }
      }
      return {
        events: events(),
        close: async () => {
          await stream.unsubscribe().catch(() => undefined);
          stream.destroy();
        },
      };
    };
    return resubscribing(open, options.after, handler, { name: "EventStoreDB subscription" });
  }

  async close(): Promise<void> {
    await this.client.dispose();
  }
}

function toEsdbExpected(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === "no_stream") return NO_STREAM;
  if (expected === "any") return ANY;
  return BigInt(expected);
}

function at(position: number): Position {
  return { commit: BigInt(position), prepare: BigInt(position) };
}

function isAfter(p: Position, q: Position): boolean {
  return p.commit > q.commit || (p.commit === q.commit && p.prepare > q.prepare);
}

/** An event's position in the log. Servers before 22.6 leave positions off stream reads: -1 says "unknown" rather than inventing one. */
function logPosition(event: EsdbRecordedEvent): number {
  return event.position ? Number(event.position.commit) : -1;
}

/** An event of $all as this application's, or null (skipped with a warning) when it is not JSON: another application's. */
export function toRecordedOrSkip(event: EsdbRecordedEvent): RecordedEvent | null {
  if (event.isJson) return toRecorded(event, event.data);
  try {
    return toRecorded(event, JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(event.data as Uint8Array)));
  } catch (error) {
    skipForeignEvent({ streamName: event.streamId, type: event.type, position: logPosition(event) }, error instanceof Error ? error.message : String(error));
    return null;
  }
}

function toRecorded(event: EsdbRecordedEvent, data: unknown): RecordedEvent {
  return {
    id: event.id,
    type: event.type,
    data,
    metadata: toMetadata(event.metadata),
    streamName: event.streamId,
    revision: Number(event.revision),
    position: logPosition(event),
    time: event.created.toISOString(),
  };
}

/** Events written by other tools may lack our metadata; missing fields read as unknown (null). */
function toMetadata(raw: unknown): EventMetadata {
  const m = raw !== null && typeof raw === "object" && !(raw instanceof Uint8Array) ? (raw as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  const userId = typeof m.userId === "number" ? m.userId : null;
  return { correlationId: text(m.correlationId) ?? "", causationId: text(m.causationId), userId, system: text(m.system) };
}
