/**
 * The relay against a bus that refuses some publishes (a full stream, NATS away): every event is published once, in
 * the end, and the checkpoint never passes an event the bus has not taken.
 */
import { afterAll, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Bus, Consumer } from "../../src/bus/port.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { logger } from "../../src/logging/logger.ts";
import { Checkpoints } from "../../projections/checkpoints.ts";
import { startRelay } from "../../workers/relay.ts";
import { decodeReference } from "../../workers/subjects.ts";
import { waitFor } from "../contracts/bus.contract.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-relay-refusals-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };

/** Takes a publish after a random few milliseconds, or refuses it: every third event's first two offers, and all for a while. */
class RefusingBus implements Bus {
  readonly taken = new Map<string, number>(); // event id -> position
  readonly offers = new Map<string, number>();
  readonly twice: string[] = [];
  closedUntil = 0;

  async publish(_subject: string, data: Uint8Array, options: { id: string }): Promise<void> {
    const offer = (this.offers.get(options.id) ?? 0) + 1;
    this.offers.set(options.id, offer);
    const { position } = decodeReference(data);
    await Bun.sleep(Math.random() * 5);
    if (Date.now() < this.closedUntil || (position % 3 === 0 && offer <= 2)) throw new Error("the stream is full");
    if (this.taken.has(options.id)) this.twice.push(options.id);
    this.taken.set(options.id, position);
  }
  async consume(): Promise<Consumer> {
    return { stop: async () => undefined };
  }
  async ping(): Promise<void> {}
  async queueDepth(): Promise<number> {
    return 0;
  }
  async close(): Promise<void> {}
}

test("refused publishes are offered again until taken; the checkpoint stays behind every event not yet taken", async () => {
  const quiet = [
    spyOn(logger("relay"), "warn").mockImplementation((() => undefined) as never),
    spyOn(logger("relay"), "info").mockImplementation((() => undefined) as never),
  ];
  const store = new SqliteEventStore(join(dir, "events.sqlite"));
  const checkpoints = new Checkpoints(new EmbeddedDocumentStore(join(dir, "readmodels.sqlite")));
  const bus = new RefusingBus();
  const positions: number[] = [];
  const save = checkpoints.save.bind(checkpoints);
  const unsafe: string[] = [];
  spyOn(checkpoints, "save").mockImplementation(async (name: string, position: number) => {
    // Every event at or before the checkpoint must have been taken by the bus.
    for (const p of positions) if (p <= position && ![...bus.taken.values()].includes(p)) unsafe.push(`${position} passes ${p}`);
    return save(name, position);
  });
  bus.closedUntil = Date.now() + 600; // NATS away at first: everything refused
  const relay = await startRelay({ store, bus, checkpoints, maxInFlight: 8 });
  for (let n = 0; n < 40; n++) {
    const { position } = await store.append(`counter-${n}`, [{ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 1 }, metadata }], {
      expectedRevision: "no_stream",
    });
    positions.push(position);
  }
  await waitFor(() => bus.taken.size === 40, 20_000, "every event taken");
  for (let i = 0; i < 100 && (await checkpoints.load("relay")) !== positions.at(-1); i++) await Bun.sleep(20);
  expect(await checkpoints.load("relay")).toBe(positions.at(-1)!);
  expect(unsafe).toEqual([]);
  expect(bus.twice).toEqual([]);
  await relay.stop();
  await store.close();
  for (const spy of quiet) spy.mockRestore();
}, 30_000);
