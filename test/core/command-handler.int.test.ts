import { describe, expect, test } from "bun:test";
import { handle } from "../../src/core/command-handler.ts";
import { ConflictError } from "../../src/core/errors.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import type { EventStore } from "../../src/core/event-store.ts";
import { counterDecider } from "../support/counter-decider.ts";
import { deciderSpec } from "../support/decider-spec.ts";

const metadata = { correlationId: "c-1", causationId: null, userId: 1, system: null };

describe("a pure decider, given/when/then", () => {
  const spec = deciderSpec(counterDecider);
  test("opening a new counter", () =>
    spec
      .given([])
      .when({ type: "OpenCounter", limit: 3 })
      .then([{ type: "CounterOpened", data: { limit: 3 } }]));
  test("incrementing past the limit is refused", () =>
    spec
      .given([
        { type: "CounterOpened", data: { limit: 1 } },
        { type: "CounterIncremented", data: { by: 1 } },
      ])
      .when({ type: "Increment", by: 1 })
      .thenThrows(ConflictError, /limit/));
});

describe("handle", () => {
  test("loads, decides and appends with the stream's revision", async () => {
    const store = new SqliteEventStore(":memory:");
    const opened = await handle(store, "counter-1", counterDecider, (state) => counterDecider.decide({ type: "OpenCounter", limit: 5 }, state), { metadata });
    expect(opened.revision).toBe(0);
    const incremented = await handle(store, "counter-1", counterDecider, (state) => counterDecider.decide({ type: "Increment", by: 2 }, state), { metadata });
    expect(incremented.revision).toBe(1);
    expect(incremented.state).toEqual({ status: "open", value: 2, limit: 5 });
    const stored = await store.readStream("counter-1");
    expect(stored.map((e) => e.type)).toEqual(["CounterOpened", "CounterIncremented"]);
    expect(stored[1]!.metadata).toEqual(metadata);
    await store.close();
  });

  test("the decision is a closure: it sees the state as loaded, and again the newer state after a conflict", async () => {
    const store = new SqliteEventStore(":memory:");
    await handle(store, "counter-4", counterDecider, (state) => counterDecider.decide({ type: "OpenCounter", limit: 100 }, state), { metadata });
    const seen: number[] = [];
    let interfered = false;
    // Doubles whatever the counter holds when the decision runs; a writer slips in before the first append.
    const doubled = await handle(
      store,
      "counter-4",
      counterDecider,
      (state) => {
        if (state.status !== "open") return [];
        seen.push(state.value);
        if (!interfered) {
          interfered = true;
          void store.append("counter-4", [{ id: crypto.randomUUID(), type: "CounterIncremented", data: { by: 3 }, metadata }], { expectedRevision: 0 });
        }
        return counterDecider.decide({ type: "Increment", by: state.value + 1 }, state);
      },
      { metadata },
    );
    expect(seen).toEqual([0, 3]);
    expect(doubled.state).toEqual({ status: "open", value: 7, limit: 100 });
    await store.close();
  });

  test("a decider with nothing to say appends nothing", async () => {
    const store = new SqliteEventStore(":memory:");
    await handle(store, "counter-2", counterDecider, (state) => counterDecider.decide({ type: "OpenCounter", limit: 5 }, state), { metadata });
    const again = await handle(store, "counter-2", counterDecider, (state) => counterDecider.decide({ type: "OpenCounter", limit: 9 }, state), { metadata });
    expect(again.events).toEqual([]);
    expect(again.position).toBeNull();
    expect((await store.readStream("counter-2")).length).toBe(1);
    await store.close();
  });

  test("parallel commands on one stream retry on conflict and the rule holds exactly", async () => {
    const store = new SqliteEventStore(":memory:");
    await handle(store, "counter-3", counterDecider, (state) => counterDecider.decide({ type: "OpenCounter", limit: 3 }, state), { metadata });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, () =>
        handle(store, "counter-3", counterDecider, (state) => counterDecider.decide({ type: "Increment", by: 1 }, state), { metadata }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(3);
    const refusals = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(refusals.length).toBe(17);
    for (const refusal of refusals) expect(refusal.reason).toBeInstanceOf(ConflictError);
    expect((await store.readStream("counter-3")).length).toBe(4);
    await store.close();
  });

  test("domain errors reach the caller and nothing is appended", async () => {
    const store = new SqliteEventStore(":memory:");
    expect(
      handle(store, "counter-4", counterDecider, (state) => counterDecider.decide({ type: "Increment", by: 1 }, state), { metadata }),
    ).rejects.toBeInstanceOf(ConflictError);
    expect(await store.readStream("counter-4")).toEqual([]);
    await store.close();
  });

  test("the decision is given the revision it decides on: of two writers that read one revision, one appends and the other's retry sees the newer one", async () => {
    const store = new SqliteEventStore(":memory:");
    await handle(store, "counter-9", counterDecider, (state) => counterDecider.decide({ type: "OpenCounter", limit: 5 }, state), { metadata });
    // Both load and decide on revision 0 before either appends: the appends race for real.
    let decided = 0;
    let bothDecided!: () => void;
    const gate = new Promise<void>((resolve) => (bothDecided = resolve));
    const gated: EventStore = {
      append: async (stream, events, options) => {
        await gate;
        return store.append(stream, events, options);
      },
      readStream: (stream, options) => store.readStream(stream, options),
      readAll: (options) => store.readAll(options),
      subscribe: (options, handler) => store.subscribe(options, handler),
      close: () => store.close(),
    };
    // What an If-Match does: only on the revision the writer read.
    const onRevision0 = (state: Parameters<typeof counterDecider.evolve>[0], revision: number) => {
      if (revision !== 0) throw new ConflictError(`moved on to revision ${revision}`);
      if (++decided === 2) bothDecided();
      return counterDecider.decide({ type: "Increment", by: 1 }, state);
    };
    const outcomes = await Promise.allSettled([0, 1].map(() => handle(gated, "counter-9", counterDecider, onRevision0, { metadata })));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = outcomes.find((o) => o.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(ConflictError);
    expect(String(refused.reason.message)).toBe("moved on to revision 1");
    expect((await store.readStream("counter-9")).map((e) => e.type)).toEqual(["CounterOpened", "CounterIncremented"]);
    await store.close();
  });
});
