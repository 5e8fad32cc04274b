/**
 * JetStream keeps work until it is done: a message stays until every durable that wants it has
 * acknowledged it, and a full stream refuses a publish instead of dropping the slowest worker's backlog.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { connect } from "nats";
import { NatsBus } from "../../src/bus/nats.ts";
import { bytes, gate, text, unique, waitFor } from "../contracts/bus.contract.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";

let server: NatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** Publishes until the stream refuses; returns how many it took and the refusal. */
async function fill(bus: NatsBus, subject: string, prefix: string): Promise<{ taken: number; refusal: Error }> {
  for (let n = 0; n < 1_000; n++) {
    try {
      await bus.publish(subject, bytes(`${prefix}-${n}`), { id: `${prefix}-${n}` });
    } catch (error) {
      return { taken: n, refusal: error as Error };
    }
  }
  throw new Error("the stream never filled");
}

test("a message stays while one of two interested durables has not acknowledged it; a full stream refuses instead of dropping", async () => {
  const stream = unique("K");
  const root = unique("keep.t");
  const bus = await NatsBus.connect(server.url, { stream, subjects: [`${root}.>`], maxBytes: 20 * 1024 });
  const fast: string[] = [];
  const slow: string[] = [];
  const slowMayGo = gate();
  await bus.consume({ durable: "fast", subject: `${root}.>`, concurrency: 4 }, async (m) => void fast.push(text(m.data)));
  await bus.consume({ durable: "slow", subject: `${root}.>`, concurrency: 1 }, async (m) => {
    await slowMayGo.promise;
    slow.push(text(m.data));
  });

  // Where the old limits-and-discard-old stream dropped its oldest message, the publish is refused.
  const { taken, refusal } = await fill(bus, `${root}.job`, "first");
  expect(taken).toBe(20); // one message per KiB of the size limit
  expect(refusal.message).toContain(`the stream ${stream} is full`);
  await waitFor(() => fast.length === taken, undefined, "the fast durable to finish");

  const nc = await connect({ servers: server.url });
  const jsm = await nc.jetstreamManager();
  // The fast durable acknowledged everything; the slow one nothing, so everything is still there.
  expect((await jsm.streams.info(stream)).state.messages).toBe(taken);
  expect(await bus.queueDepth("slow")).toBe(taken);

  slowMayGo.open();
  await waitFor(() => slow.length === taken, 10_000, "the slow durable to get every message");
  expect(slow).toEqual(fast); // none dropped, in order
  // Acknowledged by both: gone from the stream, which takes new work again.
  for (let i = 0; i < 50 && (await jsm.streams.info(stream)).state.messages > 0; i++) await Bun.sleep(20);
  expect((await jsm.streams.info(stream)).state.messages).toBe(0);
  await bus.publish(`${root}.job`, bytes("after"), { id: `${root}-after` });
  await waitFor(() => slow.includes("after") && fast.includes("after"), undefined, "the message published once there was room");
  await nc.close();
  await bus.close();
}, 20_000);

test("a message no durable wants is not kept (interest retention): the service creates its durables before its relay publishes", async () => {
  const stream = unique("K");
  const root = unique("nobody.t");
  const bus = await NatsBus.connect(server.url, { stream, subjects: [`${root}.>`] });
  await bus.publish(`${root}.x`, bytes("unwanted"), { id: `${root}-1` });
  const got: string[] = [];
  await bus.consume({ durable: "late", subject: `${root}.>`, concurrency: 1 }, async (m) => void got.push(text(m.data)));
  await bus.publish(`${root}.x`, bytes("wanted"), { id: `${root}-2` });
  await waitFor(() => got.length === 1, undefined, "the message published after the durable");
  await Bun.sleep(100);
  expect(got).toEqual(["wanted"]);
  await bus.close();
});
