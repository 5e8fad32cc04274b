/**
 * What every Bus adapter promises (src/bus/port.ts). Each test uses its own subjects and durable
 * names, so adapters that keep state between tests (a JetStream stream) do not leak across them.
 *
 * Publishes are started, not awaited, before handlers are released: on the in-process bus publish()
 * resolves only once the handlers have acknowledged.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import type { Bus, BusMessage } from "../../src/bus/port.ts";

export type OpenBus = () => Promise<{ bus: Bus; close: () => Promise<void> }>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function unique(prefix: string): string {
  return `${prefix}${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
}

export const bytes = (text: string): Uint8Array => encoder.encode(text);
export const text = (data: Uint8Array): string => decoder.decode(data);

export async function waitFor(condition: () => boolean, timeoutMs = 4_000, what = "condition"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(10);
  }
}

/** A promise the test resolves by hand, to hold handlers in flight. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

export function busContract(adapterName: string, open: OpenBus): void {
  describe(`Bus contract: ${adapterName}`, () => {
    let bus: Bus;
    let closeBus: () => Promise<void>;
    let root: string; // a subject prefix no other test uses

    beforeEach(async () => {
      ({ bus, close: closeBus } = await open());
      root = unique("scribe.t");
    });
    afterEach(async () => {
      await closeBus();
    });

    test("a consumer receives a published message with its subject, id and data", async () => {
      const got: BusMessage[] = [];
      await bus.consume({ durable: unique("d"), subject: `${root}.created`, concurrency: 1 }, async (m) => {
        got.push(m);
      });
      await bus.publish(`${root}.created`, bytes("hello"), { id: "m-1" });
      await waitFor(() => got.length === 1, undefined, "the message");
      expect(got[0]).toMatchObject({ subject: `${root}.created`, id: "m-1", deliveryCount: 1 });
      expect(text(got[0]!.data)).toBe("hello");
      expect(() => got[0]!.inProgress()).not.toThrow();
    });

    test("ping answers while the bus is open, and fails once it is closed (readiness)", async () => {
      await bus.ping();
      await bus.close();
      await expect(bus.ping()).rejects.toThrow();
    });

    test("queueDepth counts a durable's messages until they are acknowledged (the queue-depth metric)", async () => {
      const durable = unique("depth");
      expect(await bus.queueDepth(durable)).toBe(0); // no such durable yet
      const release = gate();
      let handled = 0;
      await bus.consume({ durable, subject: `${root}.depth`, concurrency: 1 }, async () => {
        await release.promise;
        handled++;
      });
      for (const n of [1, 2, 3]) void bus.publish(`${root}.depth`, bytes(String(n)), { id: `${root}-depth-${n}` }).catch(() => {});
      // One in the handler's hands, two waiting: all three still to finish.
      const deadline = Date.now() + 4_000;
      while ((await bus.queueDepth(durable)) !== 3 && Date.now() < deadline) await Bun.sleep(20);
      expect(await bus.queueDepth(durable)).toBe(3);
      release.open();
      await waitFor(() => handled === 3, undefined, "the three messages");
      const settled = Date.now() + 4_000;
      while ((await bus.queueDepth(durable)) !== 0 && Date.now() < settled) await Bun.sleep(20);
      expect(await bus.queueDepth(durable)).toBe(0);
    });

    test("filters select with * (one token) and > (the rest)", async () => {
      const star: string[] = [];
      const rest: string[] = [];
      // Concurrency 1 keeps delivery in publish order, so once the last one arrives the others have too.
      await bus.consume({ durable: unique("star"), subject: `${root}.*.done`, concurrency: 1 }, async (m) => {
        star.push(m.subject);
      });
      await bus.consume({ durable: unique("rest"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
        rest.push(m.subject);
      });
      const subjects = [`${root}.a.b.done`, `${root}.a.failed`, `${root}.done`, `${root}.a.done`];
      await Promise.all(subjects.map((s, i) => bus.publish(s, bytes(s), { id: `${root}-${i}` })));
      await waitFor(() => star.length >= 1 && rest.length >= 4, undefined, "both consumers");
      await Bun.sleep(50);
      expect(star).toEqual([`${root}.a.done`]);
      expect(rest.sort()).toEqual([...subjects].sort());
    });

    test("two durables each get every message", async () => {
      const first: string[] = [];
      const second: string[] = [];
      await bus.consume({ durable: unique("one"), subject: `${root}.>`, concurrency: 2 }, async (m) => {
        first.push(m.id);
      });
      await bus.consume({ durable: unique("two"), subject: `${root}.>`, concurrency: 2 }, async (m) => {
        second.push(m.id);
      });
      await Promise.all(["a", "b", "c"].map((id) => bus.publish(`${root}.x`, bytes(id), { id: `${root}-${id}` })));
      await waitFor(() => first.length === 3 && second.length === 3, undefined, "both durables");
      expect(first.sort()).toEqual(second.sort());
    });

    test("consumers sharing a durable split the work, each message handled once", async () => {
      const durable = unique("shared");
      const byA: string[] = [];
      const byB: string[] = [];
      const slow = (into: string[]) => async (m: BusMessage) => {
        into.push(m.id);
        await Bun.sleep(20);
      };
      await bus.consume({ durable, subject: `${root}.>`, concurrency: 1 }, slow(byA));
      await bus.consume({ durable, subject: `${root}.>`, concurrency: 1 }, slow(byB));
      const ids = Array.from({ length: 12 }, (_, i) => `${root}-${i}`);
      const published = Promise.all(ids.map((id) => bus.publish(`${root}.job`, bytes(id), { id })));
      await waitFor(() => byA.length + byB.length >= ids.length, undefined, "all jobs");
      await published;
      await Bun.sleep(100);
      expect([...byA, ...byB].sort()).toEqual([...ids].sort());
      expect(byA.length).toBeGreaterThan(0);
      expect(byB.length).toBeGreaterThan(0);
    });

    test("a second publish with the same id is delivered once", async () => {
      const got: string[] = [];
      await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
        got.push(m.id);
      });
      await bus.publish(`${root}.x`, bytes("1"), { id: `${root}-dup` });
      await bus.publish(`${root}.x`, bytes("1"), { id: `${root}-dup` });
      await bus.publish(`${root}.x`, bytes("end"), { id: `${root}-end` });
      await waitFor(() => got.includes(`${root}-end`), undefined, "the last message");
      await Bun.sleep(50);
      expect(got).toEqual([`${root}-dup`, `${root}-end`]);
    });

    test("a handler that throws gets the message again with deliveryCount 2", async () => {
      const counts: number[] = [];
      await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
        counts.push(m.deliveryCount);
        if (m.deliveryCount === 1) throw new Error("transient");
      });
      await bus.publish(`${root}.x`, bytes("retry me"), { id: `${root}-r` });
      await waitFor(() => counts.length === 2, undefined, "the redelivery");
      await Bun.sleep(100);
      expect(counts).toEqual([1, 2]);
    });

    test("a message that keeps failing stops after maxDeliver deliveries", async () => {
      let calls = 0;
      const logged = console.error;
      console.error = () => {}; // the give-up is logged on purpose; keep the test output clean
      try {
        await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 1, maxDeliver: 2 }, async () => {
          calls++;
          throw new Error("always");
        });
        const published = bus.publish(`${root}.x`, bytes("poison"), { id: `${root}-p` });
        await waitFor(() => calls === 2, undefined, "two deliveries");
        await published;
        await Bun.sleep(800); // past the next retry delay: a third delivery would have come by now
        expect(calls).toBe(2);
      } finally {
        console.error = logged;
      }
    });

    test("never more than `concurrency` handlers run at once", async () => {
      let active = 0;
      let peak = 0;
      const done = new Set<string>();
      await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 3 }, async (m) => {
        active++;
        peak = Math.max(peak, active);
        await Bun.sleep(30);
        active--;
        done.add(m.id);
      });
      const ids = Array.from({ length: 10 }, (_, i) => `${root}-${i}`);
      const published = Promise.all(ids.map((id) => bus.publish(`${root}.x`, bytes(id), { id })));
      await waitFor(() => done.size === ids.length, undefined, "all handlers");
      await published;
      expect(peak).toBeLessThanOrEqual(3);
      expect(peak).toBeGreaterThan(1);
    });

    test("stop() waits for the handlers in flight and then takes no more", async () => {
      const release = gate();
      const started: string[] = [];
      let finished = 0;
      const consumer = await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
        started.push(m.id);
        await release.promise;
        finished++;
      });
      const first = bus.publish(`${root}.x`, bytes("1"), { id: `${root}-1` });
      await waitFor(() => started.length === 1, undefined, "the handler to start");
      let stopped = false;
      const stopping = consumer.stop().then(() => (stopped = true));
      await Bun.sleep(50);
      expect(stopped).toBe(false);
      release.open();
      await stopping;
      expect(finished).toBe(1);
      await first;
      void bus.publish(`${root}.x`, bytes("2"), { id: `${root}-2` }).catch(() => {});
      await Bun.sleep(100);
      expect(started).toEqual([`${root}-1`]);
    });
  });
}
