import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Decider } from "../../src/core/decider.ts";
import type { NewEvent } from "../../src/core/event.ts";
import type { EventStore } from "../../src/core/event-store.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { StateCache } from "../../src/core/state-cache.ts";
import { DocumentSnapshots } from "../../src/core/document-snapshots.ts";
import { decodeState, encodeState } from "../../src/core/state-codec.ts";
import { handle } from "../../src/core/command-handler.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-state-cache-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Added = { type: "Added"; data: { item: string } };
type Bag = { items: ReadonlySet<string>; count: number };
const bagDecider: Decider<Bag, { type: "Add"; item: string }, Added> = {
  snapshot: { name: "bag", version: 1 },
  initialState: () => ({ items: new Set(), count: 0 }),
  evolve: (state, event) => ({ items: new Set([...state.items, event.data.item]), count: state.count + 1 }),
  decide: (command, state) => (state.items.has(command.item) ? [] : [{ type: "Added", data: { item: command.item } }]),
};

const added = (item: string): NewEvent => ({
  id: crypto.randomUUID(),
  type: "Added",
  data: { item },
  metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
});

/** Counts the events each readStream call returns: what a load costs. */
function counting(store: EventStore): { store: EventStore; read: () => number } {
  let read = 0;
  const counted: EventStore = Object.create(store);
  counted.readStream = async (name, options) => {
    const events = await store.readStream(name, options);
    read += events.length;
    return events;
  };
  return { store: counted, read: () => read };
}

async function fixture(name: string) {
  const events = new SqliteEventStore(join(dir, name, "events.sqlite"));
  const documents = new EmbeddedDocumentStore(join(dir, name, "readmodels.sqlite"));
  return { events, documents, close: async () => (await documents.close(), await events.close()) };
}

describe("state cache", () => {
  test("a process reads each event of a stream once, however many commands it decides on it", async () => {
    const { events, close } = await fixture("once");
    const { store, read } = counting(events);
    const cache = new StateCache(store);
    for (let i = 0; i < 50; i++) await events.append("bag-1", [added(`i${i}`)], { expectedRevision: "any" });
    expect((await cache.load("bag-1", bagDecider)).state.count).toBe(50);
    const afterFirst = read();
    for (let i = 0; i < 10; i++) await cache.load("bag-1", bagDecider);
    expect(read()).toBe(afterFirst);
    await events.append("bag-1", [added("late")], { expectedRevision: "any" });
    const { state, revision } = await cache.load("bag-1", bagDecider);
    expect([state.count, revision, read() - afterFirst]).toEqual([51, 50, 1]);
    await close();
  });

  test("another process's appends are seen before the next decision, and a conflict decides again", async () => {
    const { events, close } = await fixture("two");
    const first = new StateCache(events);
    const second = new StateCache(events);
    await events.append("bag-1", [added("a")], { expectedRevision: "no_stream" });
    await first.load("bag-1", bagDecider);
    await second.load("bag-1", bagDecider);
    await events.append("bag-1", [added("b")], { expectedRevision: 0 });
    expect([...(await first.load("bag-1", bagDecider)).state.items]).toEqual(["a", "b"]);
    // handle's cache (a third) was never told about "b" either: it must not add it again.
    const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
    expect((await handle(events, "bag-1", bagDecider, (state) => bagDecider.decide({ type: "Add", item: "b" }, state), { metadata })).events).toEqual([]);
    expect((await handle(events, "bag-1", bagDecider, (state) => bagDecider.decide({ type: "Add", item: "c" }, state), { metadata })).revision).toBe(2);
    expect((await second.load("bag-1", bagDecider)).state.count).toBe(3);
    await close();
  });

  test("a new process starts from the newest snapshot and reads only the events after it", async () => {
    const { events, documents, close } = await fixture("snapshots");
    const snapshots = new DocumentSnapshots(documents);
    const writer = new StateCache(events, { snapshots, snapshotEvery: 100 });
    for (let i = 0; i < 250; i++) {
      await events.append("bag-7", [added(`i${i}`)], { expectedRevision: "any" });
      await writer.load("bag-7", bagDecider);
    }
    expect((await snapshots.load("bag@1:bag-7"))?.revision).toBe(199);

    const { store, read } = counting(events);
    const restarted = new StateCache(store, { snapshots });
    const { state, revision } = await restarted.load("bag-7", bagDecider);
    expect([state.count, state.items.size, revision]).toEqual([250, 250, 249]);
    expect(state.items).toBeInstanceOf(Set);
    // The event at the snapshot (to check it is this log's) and the 50 after it.
    expect(read()).toBe(51);
    await close();
  });

  test("a snapshot of another history (its event id differs) is ignored", async () => {
    const { events, documents, close } = await fixture("foreign");
    const snapshots = new DocumentSnapshots(documents);
    for (let i = 0; i < 5; i++) await events.append("bag-1", [added(`i${i}`)], { expectedRevision: "any" });
    await snapshots.save("bag@1:bag-1", { revision: 3, eventId: "not-this-log", state: encodeState({ items: new Set(["x"]), count: 999 }) });
    const { state } = await new StateCache(events, { snapshots }).load("bag-1", bagDecider);
    expect(state.count).toBe(5);
    await close();
  });

  test("the codec keeps Sets and Maps, nested, and drops undefined", () => {
    const state = { a: new Set([1, 2]), m: new Map([["k", { at: "t", s: new Set(["x"]) }]]), n: null, u: undefined, list: [new Map()] };
    const decoded = decodeState(JSON.parse(JSON.stringify(encodeState(state))));
    expect(decoded).toEqual({ a: new Set([1, 2]), m: new Map([["k", { at: "t", s: new Set(["x"]) }]]), n: null, list: [new Map()] });
  });
});
