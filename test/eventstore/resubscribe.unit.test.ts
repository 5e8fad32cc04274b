import { describe, expect, test } from "bun:test";
import type { RecordedEvent } from "../../src/core/event.ts";
import { resubscribing, type FeedSource } from "../../src/eventstore/resubscribe.ts";

const event = (position: number): RecordedEvent => ({
  id: `e${position}`,
  type: "T",
  data: {},
  metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
  streamName: "s-1",
  revision: position,
  position,
  time: "t",
});

/** A log of positions 1..n served by feeds that each break after `breakAfter` events (a dropped connection). */
function flakyLog(n: number, breakAfter: number) {
  const opened: (number | undefined)[] = [];
  const open = (after: number | undefined): FeedSource => {
    opened.push(after);
    let closed = false;
    let endLive: () => void = () => {};
    async function* events() {
      let served = 0;
      // A server resends the event at the resume position sometimes: the subscriber must skip it.
      for (let p = Math.max(1, after ?? 1); p <= n; p++) {
        if (closed) return;
        if (served++ === breakAfter) throw new Error("14 UNAVAILABLE: connection reset");
        yield event(p);
      }
      await new Promise<void>((resolve) => (endLive = resolve)); // live: waits for more, until closed
    }
    return { events: events(), close: async () => void ((closed = true), endLive()) };
  };
  return { open, opened };
}

describe("resubscribing", () => {
  test("a feed that drops is opened again from the last event handled: every event once, in order", async () => {
    const log = flakyLog(10, 3);
    const seen: number[] = [];
    const messages: string[] = [];
    const subscription = resubscribing(log.open, undefined, (e) => void seen.push(e.position), {
      name: "test",
      delayMs: () => 1,
      log: (m) => messages.push(m),
    });
    const deadline = Date.now() + 2000;
    while (seen.length < 10 && Date.now() < deadline) await Bun.sleep(2);
    await subscription.stop();
    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(log.opened).toEqual([undefined, 3, 5, 7, 9]);
    expect(messages[0]).toMatch(/test: the feed failed \(14 UNAVAILABLE: connection reset\); subscribing again after position 3/);
    await subscription.done;
  });

  test("backs off more with each failure in a row", async () => {
    const log = flakyLog(1, 0);
    const delays: number[] = [];
    const subscription = resubscribing(log.open, 0, () => undefined, { name: "test", delayMs: (n) => (delays.push(n), 1), log: () => undefined });
    while (delays.length < 4) await Bun.sleep(2);
    await subscription.stop();
    expect(delays.slice(0, 4)).toEqual([1, 2, 3, 4]);
  });

  test("the handler's own failure ends the subscription with that error", async () => {
    const log = flakyLog(5, 100);
    const subscription = resubscribing(
      log.open,
      undefined,
      (e) => {
        if (e.position === 2) throw new Error("projection bug");
      },
      { name: "test", delayMs: () => 1 },
    );
    expect(subscription.done).rejects.toThrow("projection bug");
    await subscription.done.catch(() => undefined);
    expect(log.opened).toEqual([undefined]);
  });
});
