/**
 * Two faults of the embedded event store that the fault cases found, checked on the store alone:
 * - it shares its file with whoever opens it: a row another application wrote there (a BLOB, text that is not JSON)
 *   is skipped with a warning and counted, by every reader, instead of stopping the relay and every projection at
 *   its position for good (processes.e2e.test.ts, "a foreign binary event");
 * - bun:sqlite answers synchronously: a loop over the log's pages (a rebuild, a subscription catching up) must still
 *   let timers and I/O run between pages, or a process rebuilding a projection on 100,000 events neither listens nor
 *   renews its leases until it is done (rebuild.e2e.test.ts).
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { foreignEventsSkipped } from "../../src/core/foreign-events.ts";
import type { RecordedEvent } from "../../src/core/event.ts";

let dir: string;
let store: SqliteEventStore;
const file = () => join(dir, "events.sqlite");
const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "scribe-foreign-"));
  store = new SqliteEventStore(file());
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const append = (stream: string, n: number) =>
  store.append(stream, [{ id: crypto.randomUUID(), type: "Counted", data: { n }, metadata }], { expectedRevision: "any" });

/** A row as another program writing to the same file would add it. */
function foreignRow(data: string | Uint8Array): void {
  const db = new Database(file());
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.prepare("INSERT INTO events (stream_name, revision, event_id, type, data, metadata, time) VALUES (?, 0, ?, 'SensorReading', ?, ?, ?)").run(
      `other-app-${crypto.randomUUID()}`,
      crypto.randomUUID(),
      data,
      data,
      new Date().toISOString(),
    );
  } finally {
    db.close();
  }
}

test("readAll and a subscription go past a binary row and a non-JSON one, each skipped once per reader and counted", async () => {
  await append("a-1", 1);
  foreignRow(new Uint8Array([0xff, 0x00, 0x13, 0x37]));
  foreignRow("<xml>not json</xml>");
  const before = foreignEventsSkipped();
  const seen: RecordedEvent[] = [];
  const subscription = store.subscribe({}, async (event) => void seen.push(event));
  await append("a-1", 2);
  const deadline = Date.now() + 5_000;
  while (seen.length < 2 && Date.now() < deadline) await Bun.sleep(10);
  expect(seen.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
  expect(foreignEventsSkipped()).toBe(before + 2);
  // A later append does not make the subscription read the foreign rows again.
  await append("a-1", 3);
  while (seen.length < 3 && Date.now() < deadline) await Bun.sleep(10);
  expect(foreignEventsSkipped()).toBe(before + 2);
  await subscription.stop();

  expect((await store.readAll()).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
  // A page the foreign rows would have filled is made up from the rows after them: a reader paging by `limit` goes on.
  expect((await store.readAll({ after: 1, limit: 2 })).map((e) => e.data)).toEqual([{ n: 2 }, { n: 3 }]);
});

test("reading the log page by page, and a subscription catching up, let timers run between pages", async () => {
  const events = Array.from({ length: 5_000 }, (_, n) => ({ id: crypto.randomUUID(), type: "Counted", data: { n }, metadata }));
  for (let i = 0; i < events.length; i += 1_000) await store.append(`a-${i}`, events.slice(i, i + 1_000), { expectedRevision: "no_stream" });
  let ticks = 0;
  const timer = setInterval(() => ticks++, 0);
  try {
    // As a rebuild folds the log (projections/rebuild.ts): pages of 1,000, each awaited.
    let ticksAtEnd = 0;
    for (let after = 0; ; ) {
      const page = await store.readAll({ after, limit: 1_000 });
      if (page.length === 0) break;
      after = page.at(-1)!.position;
      ticksAtEnd = ticks;
    }
    expect(ticksAtEnd).toBeGreaterThan(0);

    const before = ticks;
    let delivered = 0;
    let ticksWhileCatchingUp = 0;
    const subscription = store.subscribe({}, async () => {
      delivered++;
      if (delivered === events.length) ticksWhileCatchingUp = ticks - before;
    });
    const deadline = Date.now() + 10_000;
    while (delivered < events.length && Date.now() < deadline) await Bun.sleep(10);
    await subscription.stop();
    expect(delivered).toBe(events.length);
    expect(ticksWhileCatchingUp).toBeGreaterThan(0);
  } finally {
    clearInterval(timer);
  }
});
