/**
 * Projections and workers run as pieces of the turn's share of background work (src/core/turn-share.ts), so a piece
 * may wait for a later turn. Stopping must neither hang on such a piece nor lose what it carries: a subscription whose
 * page read waits for its turn ends when stopped, and a worker's delivery that waits for its turn is handled before the
 * stop ends (handing it back would spend one of its deliveries, and on the last one lose it).
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { InProcessBus } from "../../src/bus/in-process.ts";
import { startWorker } from "../../workers/worker.ts";
import { encodeEvent, subjectFor } from "../../workers/subjects.ts";
import { inTurnShare, piecesWaiting, turnShareMs } from "../../src/core/turn-share.ts";
import type { Worker } from "../../src/core/worker.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function freshStore(): SqliteEventStore {
  const dir = mkdtempSync(join(tmpdir(), "scribe-turn-stop-"));
  dirs.push(dir);
  return new SqliteEventStore(join(dir, "events.sqlite"));
}

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };

/** Spends this turn's share, so the next piece waits for a later turn. */
const spendTheShare = () =>
  inTurnShare(() => {
    const until = performance.now() + turnShareMs + 2;
    while (performance.now() < until);
  });

/** Lets this turn's promise callbacks run (no timer, no I/O) until `check` holds. */
async function withinThisTurn(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await Promise.resolve();
  expect(check()).toBe(true);
}

/** `promise`, or a rejection after `ms`: a stop that hangs fails the test instead of timing it out. */
const within = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, Bun.sleep(ms).then(() => Promise.reject(new Error(`${what} did not end within ${ms} ms`)))]);

describe("stopping while pieces wait for their turn", () => {
  test("given a subscription whose first page read waits for its turn, when it is stopped, then the stop ends", async () => {
    const store = freshStore();
    const seen: number[] = [];
    await spendTheShare();
    const subscription = store.subscribe({}, async (event) => void seen.push(event.position));
    await withinThisTurn(() => piecesWaiting() === 1);
    await within(subscription.stop(), 2000, "the subscription's stop");
    await store.append("counter-1", [{ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 1 }, metadata }], { expectedRevision: "no_stream" });
    await Bun.sleep(20);
    expect(seen).toEqual([]);
    await store.close();
  });

  test("given a worker's delivery waiting for its turn, when the worker stops, then it is handled before the stop ends", async () => {
    const store = freshStore();
    await store.append("counter-1", [{ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 1 }, metadata }], { expectedRevision: "no_stream" });
    const [event] = await store.readAll();
    const handled: string[] = [];
    const worker: Worker = { name: "stop-test", subject: "scribe.counter.CounterOpened", handle: async (e) => void handled.push(e.id) };
    const bus = new InProcessBus();
    const consumer = await startWorker(bus, store, worker, 1);

    await spendTheShare();
    const published = bus.publish(subjectFor(event!), encodeEvent(event!), { id: event!.id });
    await withinThisTurn(() => piecesWaiting() === 1);
    await within(consumer.stop(), 2000, "the worker's stop");
    expect(handled).toEqual([event!.id]);
    await published;
    await bus.close();
    await store.close();
  });
});
