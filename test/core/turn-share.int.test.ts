/**
 * Background work takes a bounded share of each turn of the event loop (src/core/turn-share.ts): an append that wakes
 * many subscriptions, each with slow handlers, lets timers run between pieces, where it used to fold everything as one
 * chain of promise callbacks. Counted, not timed: how much of the work was done when a timer due at once first ran.
 */
import { describe, expect, test } from "bun:test";
import { takeTurnShare } from "../../src/core/turn-share.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import type { NewEvent } from "../../src/core/event.ts";

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

/** How many pieces `done()` counted when a 0 ms timer, set as `work` starts, first ran. */
async function doneWhenATimerRan(work: () => Promise<void>, done: () => number): Promise<number> {
  let seen = -1;
  setTimeout(() => (seen = done()), 0);
  await work();
  return seen;
}

const event = (type: string): NewEvent => ({
  id: crypto.randomUUID(),
  type,
  data: {},
  metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
});

describe("a turn's share of background work", () => {
  test("given quick pieces of work, they go on in the turn they started in", async () => {
    let immediateRan = false;
    setImmediate(() => (immediateRan = true));
    for (let i = 0; i < 3; i++) await takeTurnShare();
    expect(immediateRan).toBe(false);
  });

  test("given pieces that together take far longer than the share, a timer runs before they are all done", async () => {
    let pieces = 0;
    const work = async () => {
      const runs = Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 10; i++) {
          await takeTurnShare();
          busy(1);
          pieces++;
        }
      });
      await Promise.all(runs);
    };
    const seen = await doneWhenATimerRan(work, () => pieces);
    expect(pieces).toBe(40);
    expect(seen).toBeGreaterThan(0);
    expect(seen).toBeLessThan(20);
  });

  test("given one append that wakes ten subscriptions with slow handlers, a timer runs before they have all handled it", async () => {
    const store = new SqliteEventStore(":memory:");
    let handled = 0;
    const subscriptions = Array.from({ length: 10 }, () =>
      store.subscribe({}, async () => {
        busy(1);
        handled++;
      }),
    );
    await Bun.sleep(5);
    const seen = await doneWhenATimerRan(
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
    // Woken at once, each subscription takes its first event in the same turn; the rest wait for later turns.
    expect(handled).toBe(50);
    expect(seen).toBeLessThan(25);
  });
});
