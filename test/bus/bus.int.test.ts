import { describe, expect, test } from "bun:test";
import { InProcessBus } from "../../src/bus/in-process.ts";
import { busContract, bytes, gate, unique } from "../contracts/bus.contract.ts";

busContract("in-process", async () => {
  const bus = new InProcessBus();
  return { bus, close: () => bus.close() };
});

/** The in-process bus has no store, so publish() is its only guarantee: it settles after the handlers. */
describe("InProcessBus.publish", () => {
  test("resolves only after every matching durable has acknowledged", async () => {
    const bus = new InProcessBus();
    const root = unique("scribe.t");
    const slow = gate();
    await bus.consume({ durable: unique("fast"), subject: `${root}.>`, concurrency: 1 }, async () => {});
    await bus.consume({ durable: unique("slow"), subject: `${root}.>`, concurrency: 1 }, () => slow.promise);
    let settled = false;
    const publishing = bus.publish(`${root}.x`, bytes("x"), { id: "p-1" }).then(() => (settled = true));
    await Bun.sleep(30);
    expect(settled).toBe(false);
    slow.open();
    await publishing;
    expect(settled).toBe(true);
    await bus.close();
  });

  test("waits through a redelivery until a handler succeeds", async () => {
    const bus = new InProcessBus();
    const root = unique("scribe.t");
    const counts: number[] = [];
    await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
      counts.push(m.deliveryCount);
      if (m.deliveryCount === 1) throw new Error("transient");
    });
    await bus.publish(`${root}.x`, bytes("x"), { id: "p-2" });
    expect(counts).toEqual([1, 2]);
    await bus.close();
  });

  test("resolves at once when no consumer matches", async () => {
    const bus = new InProcessBus();
    await bus.consume({ durable: unique("d"), subject: "scribe.other.>", concurrency: 1 }, async () => {});
    await bus.publish("scribe.nobody.listens", bytes("x"), { id: "p-3" });
    await bus.close();
  });

  test("close() rejects publishes nobody will handle any more", async () => {
    const bus = new InProcessBus();
    const root = unique("scribe.t");
    const started: string[] = [];
    const consumer = await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
      started.push(m.id);
    });
    await consumer.stop();
    // The durable outlives its last member, so this waits for one that never comes.
    const orphan = bus.publish(`${root}.x`, bytes("x"), { id: "p-4" });
    await bus.close();
    await expect(orphan).rejects.toThrow("bus closed");
    expect(started).toEqual([]);
  });

  test("a durable consumer created later gets what waited in its group", async () => {
    const bus = new InProcessBus();
    const root = unique("scribe.t");
    const durable = unique("d");
    const first = await bus.consume({ durable, subject: `${root}.>`, concurrency: 1 }, async () => {});
    await first.stop();
    const waiting = bus.publish(`${root}.x`, bytes("x"), { id: "p-5" });
    const got: string[] = [];
    await bus.consume({ durable, subject: `${root}.>`, concurrency: 1 }, async (m) => {
      got.push(m.id);
    });
    await waiting;
    expect(got).toEqual(["p-5"]);
    await bus.close();
  });
});
