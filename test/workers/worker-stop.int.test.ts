/**
 * A worker's handling of a message is a piece of the turn's share of background work (src/core/turn-share.ts), so a
 * delivery may wait for a later turn. One that gets its turn after the worker began stopping must not run against
 * stores being closed: it hands its message back to the bus, and the stop does not wait on it.
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

const busy = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe("a worker stopping while its delivery waits for a turn", () => {
  test("given a delivery waiting for its turn, when the worker stops, then it is not handled and the stop ends", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scribe-worker-stop-"));
    dirs.push(dir);
    const store = new SqliteEventStore(join(dir, "events.sqlite"));
    const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
    await store.append("counter-1", [{ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 1 }, metadata }], { expectedRevision: "no_stream" });
    const [event] = await store.readAll();
    const handled: string[] = [];
    const worker: Worker = { name: "stop-test", subject: "scribe.counter.CounterOpened", handle: async (e) => void handled.push(e.id) };
    const bus = new InProcessBus();
    const consumer = await startWorker(bus, store, worker, 1);

    // This turn's share is spent, so the delivery published now waits for a later turn.
    await inTurnShare(() => busy(turnShareMs + 2));
    const published = bus.publish(subjectFor(event!), encodeEvent(event!), { id: event!.id }).catch(() => undefined);
    for (let i = 0; i < 1000 && piecesWaiting() === 0; i++) await Promise.resolve();
    expect(piecesWaiting()).toBe(1);

    await consumer.stop();
    expect(handled).toEqual([]);
    await bus.close();
    await published;
    await store.close();
  });
});
