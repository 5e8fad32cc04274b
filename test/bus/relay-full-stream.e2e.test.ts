/**
 * The relay against a full JetStream stream (discard-new): the publish is refused, the relay keeps its checkpoint
 * behind the refused events and offers them again, and publishes them once workers have made room.
 */
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NatsBus } from "../../src/bus/nats.ts";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { logger } from "../../src/logging/logger.ts";
import { Checkpoints } from "../../projections/checkpoints.ts";
import { startRelay } from "../../workers/relay.ts";
import { gate, waitFor } from "../contracts/bus.contract.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";

let server: NatsServer;
let dir: string;
beforeAll(async () => {
  server = await startNatsServer();
  dir = mkdtempSync(join(tmpdir(), "scribe-relay-full-"));
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };

test("a full stream: the relay waits with its checkpoint behind the refused events, and publishes them once there is room", async () => {
  const lines: string[] = [];
  const relayLog = logger("relay");
  const remember = (_fields: unknown, msg?: string) => void lines.push(msg ?? "");
  const warn = spyOn(relayLog, "warn").mockImplementation(remember as never);
  const info = spyOn(relayLog, "info").mockImplementation(remember as never);

  const store = new SqliteEventStore(join(dir, "events.sqlite"));
  const documents = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
  const checkpoints = new Checkpoints(documents);
  const bus = await NatsBus.connect(server.url, { maxBytes: 5 * 1024 }); // five messages
  const workerMayGo = gate();
  const received: string[] = [];
  await bus.consume({ durable: "slow", subject: "scribe.counter.>", concurrency: 1 }, async (m) => {
    await workerMayGo.promise;
    received.push(m.id);
  });
  const relay = await startRelay({ store, bus, checkpoints });

  const appended: { id: string; position: number }[] = [];
  for (let n = 0; n < 12; n++) {
    const id = crypto.randomUUID();
    const { position } = await store.append(`counter-${n}`, [{ id, type: "CounterOpened", data: { limit: 1 }, metadata }], { expectedRevision: "no_stream" });
    appended.push({ id, position });
  }
  await waitFor(() => lines.some((line) => line.startsWith("the bus refused events")), 5_000, "the relay to meet the full stream");
  // The stream took five; the checkpoint reaches the fifth and stays there while the rest wait.
  for (let i = 0; i < 100 && (await checkpoints.load("relay")) !== appended[4]!.position; i++) await Bun.sleep(20);
  await Bun.sleep(700); // a few offers refused meanwhile
  expect(await checkpoints.load("relay")).toBe(appended[4]!.position);
  expect(await bus.queueDepth("slow")).toBe(5);

  workerMayGo.open();
  await waitFor(() => received.length === 12, 15_000, "every event once there was room");
  expect(received).toEqual(appended.map((a) => a.id)); // each once, in log order
  for (let i = 0; i < 100 && (await checkpoints.load("relay")) !== appended[11]!.position; i++) await Bun.sleep(20);
  expect(await checkpoints.load("relay")).toBe(appended[11]!.position);
  expect(lines).toContain("the bus takes events again: publishing goes on");

  await relay.stop();
  await bus.close();
  await store.close();
  warn.mockRestore();
  info.mockRestore();
}, 30_000);
