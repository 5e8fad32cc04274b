import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { InProcessBus } from "../../src/bus/in-process.ts";
import { Checkpoints } from "../../projections/checkpoints.ts";
import { startRelay } from "../../workers/relay.ts";
import { startWorker } from "../../workers/worker.ts";
import { decodeReference, loadReferenced } from "../../workers/subjects.ts";
import type { BusMessage } from "../../src/bus/port.ts";
import type { NewEvent } from "../../src/core/event.ts";
import { counterWorker } from "../support/counter-worker.ts";

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
const opened = (): NewEvent => ({ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 10 }, metadata });

const dirs: string[] = [];
function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "scribe-relay-"));
  dirs.push(dir);
  const store = new SqliteEventStore(join(dir, "events.sqlite"));
  const db = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
  return { store, db, checkpoints: new Checkpoints(db) };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function until(check: () => Promise<boolean> | boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}

describe("relay", () => {
  test("publishes a reference to every stored event, with its id as message id and subject scribe.<category>.<type>", async () => {
    const { store, checkpoints } = fresh();
    const bus = new InProcessBus();
    const received: BusMessage[] = [];
    await bus.consume({ durable: "spy", subject: "scribe.>", concurrency: 4 }, async (m) => void received.push(m));
    await store.append("counter-1", [opened()], { expectedRevision: "no_stream" });
    const relay = await startRelay({ store, bus, checkpoints });
    const { position } = await store.append("counter-2", [opened()], { expectedRevision: "no_stream" });
    await until(() => received.length === 2);
    const stored = await store.readAll();
    expect(received.map((m) => m.id)).toEqual(stored.map((e) => e.id));
    expect(received[0]!.subject).toBe("scribe.counter.CounterOpened");
    // The message names the event (a few hundred bytes whatever its data); the worker reads it from the log.
    const reference = decodeReference(received[1]!.data);
    expect(reference).toEqual({ id: stored[1]!.id, type: "CounterOpened", streamName: "counter-2", revision: 0, position });
    expect(await loadReferenced(store, reference)).toEqual(stored[1]!);
    expect(await loadReferenced(store, { ...reference, id: "another-log" })).toBeNull();
    await until(async () => (await checkpoints.load("relay")) === position);
    await relay.stop();
    await bus.close();
  });

  test("keeps its checkpoint behind an unsettled message, so a restart publishes it again", async () => {
    const { store, checkpoints } = fresh();
    const bus = new InProcessBus();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    await bus.consume({ durable: "slow", subject: "scribe.counter.>", concurrency: 4 }, async (m) => {
      seen.push(m.id);
      if (seen.length === 1) await held;
    });
    const relay = await startRelay({ store, bus, checkpoints });
    const first = await store.append("counter-3", [opened()], { expectedRevision: "no_stream" });
    const second = await store.append("counter-4", [opened()], { expectedRevision: "no_stream" });
    await until(() => seen.length === 2);
    await Bun.sleep(50);
    expect(await checkpoints.load("relay")).toBeLessThan(first.position);
    await relay.stop();

    // "Crash": a new process, bus and relay start from the saved checkpoint.
    const bus2 = new InProcessBus();
    const again: string[] = [];
    await bus2.consume({ durable: "slow", subject: "scribe.counter.>", concurrency: 4 }, async (m) => void again.push(m.id));
    const relay2 = await startRelay({ store, bus: bus2, checkpoints });
    await until(() => again.length === 2);
    await until(async () => (await checkpoints.load("relay")) === second.position);
    release();
    await relay2.stop();
    await bus.close();
    await bus2.close();
  });
});

describe("worker base", () => {
  test("a worker acts through a command and a redelivered event changes nothing", async () => {
    const { store, checkpoints } = fresh();
    const bus = new InProcessBus();
    await startWorker(bus, store, counterWorker(store), 2);
    const relay = await startRelay({ store, bus, checkpoints });
    for (let i = 0; i < 10; i++) await store.append(`counter-w${i}`, [opened()], { expectedRevision: "no_stream" });
    await until(async () => (await store.readAll()).filter((e) => e.type === "CounterIncremented").length === 10);
    await relay.stop();

    // Every CounterOpened delivered again (as after a crash before the ack): nothing is incremented twice.
    for (const event of (await store.readAll()).filter((e) => e.type === "CounterOpened")) {
      await bus.publish("scribe.counter.CounterOpened", new TextEncoder().encode(JSON.stringify(event)), { id: `again-${event.id}` });
    }
    expect((await store.readAll()).filter((e) => e.type === "CounterIncremented").length).toBe(10);
    await bus.close();
  });

  test("an outage of its stores longer than all of a message's deliveries loses no work: the message is kept until they answer", async () => {
    const { store, checkpoints } = fresh();
    const bus = new InProcessBus();
    // The event store "restarts" for 3.5 s: every handler read fails, and the readiness probe says so. Five deliveries
    // with their back-off take about 3 s, so a message counting those failures would have been given up.
    let downUntil = 0;
    const down = () => Date.now() < downUntil;
    const worker = counterWorker(store, {
      gate: async () => {
        if (down()) throw new Error("event store unreachable");
      },
    });
    const consumer = await startWorker(bus, store, worker, 2, [], async () => (down() ? ["event store"] : []));
    const relay = await startRelay({ store, bus, checkpoints });
    downUntil = Date.now() + 3_500;
    for (let i = 0; i < 3; i++) await store.append(`counter-o${i}`, [opened()], { expectedRevision: "no_stream" });
    await until(async () => (await store.readAll()).filter((e) => e.type === "CounterIncremented").length === 3, 15_000);
    expect(Date.now()).toBeGreaterThanOrEqual(downUntil);
    await relay.stop();
    await consumer.stop();
    await bus.close();
  }, 30_000);

  test("a worker waiting out an outage stops when asked: the message goes back to the bus", async () => {
    const { store, checkpoints } = fresh();
    const bus = new InProcessBus();
    let tries = 0;
    const worker = counterWorker(store, {
      gate: async () => {
        tries++;
        throw new Error("read models unreachable");
      },
    });
    const consumer = await startWorker(bus, store, worker, 1, [], async () => ["read models"]);
    const relay = await startRelay({ store, bus, checkpoints });
    await store.append("counter-stop", [opened()], { expectedRevision: "no_stream" });
    await until(() => tries >= 1);
    const started = Date.now();
    await relay.stop();
    await consumer.stop();
    expect(Date.now() - started).toBeLessThan(1_000);
    await bus.close();
  });

  test("concurrency is bounded", async () => {
    const { store, checkpoints } = fresh();
    const bus = new InProcessBus();
    let active = 0;
    let peak = 0;
    await startWorker(
      bus,
      store,
      counterWorker(store, {
        gate: async () => {
          active++;
          peak = Math.max(peak, active);
          await Bun.sleep(20);
          active--;
        },
      }),
      3,
    );
    const relay = await startRelay({ store, bus, checkpoints });
    for (let i = 0; i < 12; i++) await store.append(`counter-c${i}`, [opened()], { expectedRevision: "no_stream" });
    await until(async () => (await store.readAll()).filter((e) => e.type === "CounterIncremented").length === 12);
    expect(peak).toBe(3);
    await relay.stop();
    await bus.close();
  });
});
