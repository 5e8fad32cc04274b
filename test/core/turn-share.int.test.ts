/**
 * Background work takes a bounded share of each turn of the event loop (src/core/turn-share.ts): pieces run one at a
 * time, and once a turn's share is spent the rest wait for the next turn, after timers and I/O have run. Counted, not
 * timed: how many 1 ms pieces ran between two turns of the event loop.
 */
import { describe, expect, test } from "bun:test";
import { inTurnShare, turnShareMs } from "../../src/core/turn-share.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import type { NewEvent } from "../../src/core/event.ts";

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** The most pieces `done()` counted between two turns of the event loop (an immediate that sets itself again), while `work` ran. */
async function mostPiecesBetweenTimers(work: () => Promise<void>, done: () => number): Promise<number> {
  let last = done();
  let most = 0;
  let ticking = true;
  const tick = () => {
    const now = done();
    most = Math.max(most, now - last);
    last = now;
    if (ticking) setImmediate(tick);
  };
  setImmediate(tick);
  await work();
  ticking = false;
  return Math.max(most, done() - last);
}

const event = (type: string): NewEvent => ({
  id: crypto.randomUUID(),
  type,
  data: {},
  metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
});

/** At most this many 1 ms pieces fit a turn's share, one more started before it ran out. */
const mostInATurn = turnShareMs + 1;

describe("a turn's share of background work", () => {
  test("given quick pieces of work, they go on in the turn they started in", async () => {
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    for (let i = 0; i < 3; i++) await inTurnShare(() => undefined);
    expect(await inTurnShare(() => "its result")).toBe("its result");
    expect(immediateRan).toBe(false);
  });

  test("given four loops of 1 ms pieces started at once, each turn runs about the share of them, all of them in the end", async () => {
    let pieces = 0;
    const work = async () => {
      const loops = Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 10; i++)
          await inTurnShare(() => {
            busy(1);
            pieces++;
          });
      });
      await Promise.all(loops);
    };
    const most = await mostPiecesBetweenTimers(work, () => pieces);
    expect(pieces).toBe(40);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(mostInATurn);
  });

  test("given one append that wakes ten subscriptions with slow handlers, each turn handles about the share of it", async () => {
    const store = new SqliteEventStore(":memory:");
    let handled = 0;
    const subscriptions = Array.from({ length: 10 }, () =>
      store.subscribe({}, async () => {
        busy(1);
        handled++;
      }),
    );
    await Bun.sleep(5);
    const most = await mostPiecesBetweenTimers(
      async () => {
        await store.append(
          "thing-1",
          Array.from({ length: 5 }, () => event("Happened")),
          { expectedRevision: "any" },
        );
        while (handled < 50) await Bun.sleep(1);
      },
      () => handled,
    );
    await Promise.all(subscriptions.map((subscription) => subscription.stop()));
    await store.close();
    expect(handled).toBe(50);
    expect(most).toBeLessThanOrEqual(mostInATurn);
  });

  test("given a piece that waits for a piece of its own, both finish", async () => {
    const outer = inTurnShare(async () => 1 + (await inTurnShare(() => 1)));
    expect(await outer).toBe(2);
  });

  test("given a piece waiting on I/O, the pieces after it start in the next turn, not when it ends", async () => {
    const order: string[] = [];
    const slow = inTurnShare(async () => {
      await Bun.sleep(50);
      order.push("slow");
    });
    const quick = inTurnShare(() => void order.push("quick"));
    await Promise.all([slow, quick]);
    expect(order).toEqual(["quick", "slow"]);
  });

  test("given a piece that throws, its error reaches its caller and the next piece still runs", async () => {
    const failing = inTurnShare(() => {
      throw new Error("broken piece");
    });
    const next = inTurnShare(() => "ran");
    await expect(failing).rejects.toThrow("broken piece");
    expect(await next).toBe("ran");
  });
});
