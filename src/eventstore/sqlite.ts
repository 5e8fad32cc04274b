import type { Database, Statement } from "bun:sqlite";
import type { NewEvent, RecordedEvent } from "../core/event.ts";
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventHandler,
  type EventStore,
  type ExpectedRevision,
  type Subscription,
} from "../core/event-store.ts";
import { assertEventSizes } from "./event-size.ts";
import { openEventsDatabase } from "./sqlite-file.ts";
import { EVENT_COLUMNS, ours, type EventRow } from "./sqlite-rows.ts";
import { inTurnShare } from "../core/turn-share.ts";

type Stored = { stream_name: string; revision: number; position: number };

const CATCH_UP_BATCH = 500;
/** Appends from other processes (the operator CLI) are only seen by polling the file. */
const POLL_MS = 100;

/** The embedded event store: one SQLite file (WAL) under DATA_DIR, shared by the server and the operator CLI. */
export class SqliteEventStore implements EventStore {
  private readonly db: Database;
  private readonly insert: Statement<never, [string, number, string, string, string, string, string]>;
  private readonly lastRevision: Statement<{ revision: number | null }, [string]>;
  private readonly byId: Statement<Stored, [string]>;
  private readonly streamRows: Statement<EventRow, [string, number, number]>;
  private readonly allRows: Statement<EventRow, [number, number]>;
  private readonly head: Statement<{ position: number | null }, []>;
  private readonly appendTx: (streamName: string, events: NewEvent[], expected: ExpectedRevision) => AppendResult;
  /** Wakes subscriptions waiting for new events; resolved on every local append and when polling sees a foreign one. */
  private waiters = new Set<() => void>();
  private readonly subscriptions = new Set<Subscription>();
  private poller: ReturnType<typeof setInterval> | null = null;
  private lastSeenHead = 0;

  /** `path` is a file (its folder is created) or ":memory:" for tests. */
  constructor(path: string) {
    this.db = openEventsDatabase(path);
    this.insert = this.db.prepare("INSERT INTO events (stream_name, revision, event_id, type, data, metadata, time) VALUES (?, ?, ?, ?, ?, ?, ?)");
    this.lastRevision = this.db.prepare("SELECT max(revision) AS revision FROM events WHERE stream_name = ?");
    this.byId = this.db.prepare("SELECT stream_name, revision, position FROM events WHERE event_id = ?");
    this.streamRows = this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE stream_name = ? AND revision >= ? ORDER BY revision LIMIT ?`);
    this.allRows = this.db.prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    this.head = this.db.prepare("SELECT max(position) AS position FROM events");
    // IMMEDIATE takes the write lock before reading the revision, so two appenders (even in two processes) cannot both pass the check.
    const tx = this.db.transaction((s: string, e: NewEvent[], x: ExpectedRevision) => this.appendLocked(s, e, x));
    this.appendTx = (s, e, x) => tx.immediate(s, e, x);
  }

  async append(streamName: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error(`append to ${streamName}: no events`);
    assertEventSizes(streamName, events);
    const result = this.appendTx(streamName, events, options.expectedRevision);
    this.wake();
    return result;
  }

  private appendLocked(streamName: string, events: NewEvent[], expected: ExpectedRevision): AppendResult {
    const first = events[0]!;
    const already = this.byId.get(first.id);
    if (already) return this.replayedResult(streamName, events, already);
    const current = this.lastRevision.get(streamName)?.revision ?? null;
    if (expected === "no_stream" ? current !== null : expected !== "any" && current !== expected) {
      throw new WrongExpectedRevisionError(streamName, expected, current ?? "no_stream");
    }
    const time = new Date().toISOString();
    let revision = current ?? -1;
    let position = 0;
    for (const event of events) {
      revision += 1;
      try {
        const run = this.insert.run(streamName, revision, event.id, event.type, JSON.stringify(event.data), JSON.stringify(event.metadata), time);
        position = Number(run.lastInsertRowid);
      } catch (error) {
        if (this.byId.get(event.id)) throw partialDuplicate(streamName);
        throw error;
      }
    }
    return { nextRevision: revision, position };
  }

  /** The batch was stored before (a retried request): answer as the first append did, like EventStoreDB's idempotent writes. */
  private replayedResult(streamName: string, events: NewEvent[], first: Stored): AppendResult {
    let last = first;
    for (let i = 0; i < events.length; i++) {
      const stored = i === 0 ? first : this.byId.get(events[i]!.id);
      if (!stored || stored.stream_name !== streamName || stored.revision !== first.revision + i) throw partialDuplicate(streamName);
      last = stored;
    }
    return { nextRevision: last.revision, position: last.position };
  }

  async readStream(streamName: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]> {
    return this.streamRows.all(streamName, options?.fromRevision ?? 0, options?.maxCount ?? -1).flatMap((row) => ours(row) ?? []);
  }

  async readAll(options?: { after?: number; limit?: number }): Promise<RecordedEvent[]> {
    // A page of a long read (a rebuild folding the log): the caller's work on the last page has held the loop till now.
    if ((options?.limit ?? Infinity) >= CATCH_UP_BATCH) await yieldToEventLoop();
    return this.readAfter(options?.after ?? 0, options?.limit ?? -1);
  }

  /** Up to `limit` of this application's events after `after` (all when negative): rows another application wrote are skipped. */
  private readAfter(after: number, limit: number): RecordedEvent[] {
    const events: RecordedEvent[] = [];
    for (let from = after; ; ) {
      const rows = this.allRows.all(from, limit < 0 ? -1 : limit - events.length);
      for (const row of rows) {
        const event = ours(row);
        if (event) events.push(event);
      }
      if (limit < 0 || rows.length === 0 || events.length >= limit) return events;
      from = rows[rows.length - 1]!.position;
    }
  }

  subscribe(options: { after?: number }, handler: EventHandler): Subscription {
    let stopped = false;
    let wakeMe: (() => void) | null = null;
    const waitForNews = () =>
      new Promise<void>((resolve) => {
        wakeMe = resolve;
        this.waiters.add(resolve);
      });
    const run = async () => {
      let checkpoint = options.after ?? 0;
      let catchingUp = false;
      while (!stopped) {
        // Catching up on a backlog, page after full page: let timers and I/O run in between (a live feed reads short pages).
        if (catchingUp) await yieldToEventLoop();
        if (stopped) return;
        // Rows, not events: a row another application wrote is skipped once and passed, never read again. Every
        // subscription wakes at each append and reads its page: a piece of the turn's share (turn-share.ts) like each
        // event. An empty page waits for news from the same piece, so no append can come between the read and the wait.
        // A stop that came while the read waited for its turn ends the loop before and after it: stop() woke only the
        // wait it knew of, and a wait begun after it would never be woken (a closing service once hung on one).
        const page = await inTurnShare(() => {
          if (stopped) return { rows: [], news: null };
          const rows = this.allRows.all(checkpoint, CATCH_UP_BATCH);
          return { rows, news: rows.length === 0 ? waitForNews() : null };
        });
        if (stopped) return;
        if (page.news) {
          await page.news;
          continue;
        }
        const batch = page.rows;
        catchingUp = batch.length === CATCH_UP_BATCH;
        for (const row of batch) {
          if (stopped) return;
          const event = ours(row);
          if (event) await inTurnShare(() => (stopped ? undefined : handler(event)));
          if (stopped) return;
          checkpoint = row.position;
        }
      }
    };
    this.startPolling();
    const done = run();
    const subscription: Subscription = {
      done,
      stop: async () => {
        stopped = true;
        wakeMe?.();
        await done.catch(() => undefined);
      },
    };
    this.subscriptions.add(subscription);
    const forget = () => {
      this.subscriptions.delete(subscription);
      if (this.subscriptions.size === 0) this.stopPolling();
    };
    done.then(forget, forget);
    return subscription;
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = new Set();
    for (const resolve of waiters) resolve();
  }

  private startPolling(): void {
    if (this.poller) return;
    this.lastSeenHead = this.head.get()?.position ?? 0;
    this.poller = setInterval(() => {
      const head = this.head.get()?.position ?? 0;
      if (head === this.lastSeenHead) return;
      this.lastSeenHead = head;
      this.wake();
    }, POLL_MS);
  }

  private stopPolling(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.stopPolling();
    this.db.close();
  }
}

/**
 * Lets timers and I/O run before the next page is read. bun:sqlite answers synchronously, so a loop over pages
 * (a rebuild folding the whole log, a subscription catching up) would otherwise be one unbroken task: with 100,000
 * events a raised projection version kept the process from listening and from renewing its leases for 10 s.
 */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

function partialDuplicate(streamName: string): Error {
  return new Error(`append to ${streamName}: some event ids of this batch are already stored, but not as this same batch`);
}
