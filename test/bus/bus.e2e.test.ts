import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DiscardPolicy, RetentionPolicy, connect, nanos } from "nats";
import { NatsBus, defaultStreamName } from "../../src/bus/nats.ts";
import { busContract, bytes, text, unique, waitFor } from "../contracts/bus.contract.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";

// No skip when nats-server is missing: startNatsServer() fails saying how to install it.
let server: NatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

busContract("NATS JetStream", async () => {
  const bus = await NatsBus.connect(server.url);
  return { bus, close: () => bus.close() };
});

describe("NatsBus beyond the shared contract", () => {
  test("a durable created after a publish starts with the messages published after it (deliver_policy new)", async () => {
    const bus = await NatsBus.connect(server.url);
    const root = unique("scribe.t");
    await bus.publish(`${root}.x`, bytes("early"), { id: `${root}-early` });
    const got: string[] = [];
    await bus.consume({ durable: unique("late"), subject: `${root}.>`, concurrency: 1 }, async (m) => {
      got.push(text(m.data));
    });
    await bus.publish(`${root}.x`, bytes("later"), { id: `${root}-later` });
    await waitFor(() => got.length === 1, undefined, "the later message");
    await Bun.sleep(200);
    expect(got).toEqual(["later"]);
    await bus.close();
  });

  test("the stream keeps work until done: interest retention, discard-new at its size limit, no age limit", async () => {
    const stream = unique("S");
    const bus = await NatsBus.connect(server.url, { stream, subjects: [`${unique("bounded.t")}.>`], maxBytes: 10_000_000 });
    await bus.close();
    await (await NatsBus.connect(server.url)).close(); // the default stream
    const nc = await connect({ servers: server.url });
    const jsm = await nc.jetstreamManager();
    const config = (await jsm.streams.info(stream)).config;
    // At most one message per KiB: reached first, and counted exactly by every nats-server (see BYTES_PER_MESSAGE).
    expect(config).toMatchObject({ retention: RetentionPolicy.Interest, discard: DiscardPolicy.New, max_age: 0, max_bytes: 10_000_000, max_msgs: 9_765 });
    const defaults = (await jsm.streams.info(defaultStreamName)).config;
    expect(defaults).toMatchObject({
      subjects: ["work.scribe.>"],
      retention: RetentionPolicy.Interest,
      discard: DiscardPolicy.New,
      max_age: 0,
      max_bytes: 1024 ** 3,
      max_msgs: 1024 ** 2,
    });
    await nc.close();
  });

  test("a worker that dies without acking: the message goes to the next worker of its durable", async () => {
    const root = unique("scribe.t");
    const durable = unique("crash");
    const options = { durable, subject: `${root}.>`, concurrency: 1, ackWaitMs: 1_000 };
    const crashingConnection = await connect({ servers: server.url });
    const crashing = await NatsBus.open(crashingConnection);
    let taken = 0;
    await crashing.consume(options, async () => {
      taken++;
      await new Promise<void>(() => {}); // hangs, as a worker that died mid-job
    });
    await crashing.publish(`${root}.x`, bytes("job"), { id: `${root}-job` });
    await waitFor(() => taken === 1, undefined, "the first worker to take the job");
    await crashingConnection.close(); // no ack, no nak: as if the process was killed

    const survivor = await NatsBus.connect(server.url);
    const counts: number[] = [];
    await survivor.consume(options, async (m) => {
      counts.push(m.deliveryCount);
    });
    await waitFor(() => counts.length === 1, 4_000, "the redelivery");
    expect(counts).toEqual([2]);
    await survivor.close();
  });

  test("re-opening with new settings updates the stream and the durable instead of failing", async () => {
    const stream = unique("S");
    const root = unique("elsewhere.t"); // outside scribe.>, which the default stream already owns (as work.scribe.>)
    const durable = unique("d");
    // The filter stays the same: nats-server 2.9 updates a durable's filter in place but may not
    // wake it for messages on the new subjects until its next pull, so a new filter wants a new durable.
    const subject = `${root}.>`;
    const first = await NatsBus.connect(server.url, { stream, subjects: [`${root}.a.>`] });
    const c = await first.consume({ durable, subject, concurrency: 1, ackWaitMs: 30_000 }, async () => {});
    await c.stop();
    await first.close();

    const second = await NatsBus.connect(server.url, { stream, subjects: [`${root}.a.>`, `${root}.b.>`] });
    const got: string[] = [];
    await second.consume({ durable, subject, concurrency: 2, ackWaitMs: 1_000, maxDeliver: 3 }, async (m) => {
      got.push(m.subject);
    });
    await second.publish(`${root}.b.x`, bytes("b"), { id: `${root}-b` });
    await waitFor(() => got.length === 1, undefined, "a message on the new subject");
    expect(got).toEqual([`${root}.b.x`]);
    await second.close();

    const nc = await connect({ servers: server.url });
    const jsm = await nc.jetstreamManager();
    expect((await jsm.streams.info(stream)).config.subjects).toEqual([`work.${root}.a.>`, `work.${root}.b.>`]);
    expect((await jsm.consumers.info(stream, durable)).config).toMatchObject({ ack_wait: nanos(1_000), max_deliver: 3 });
    await nc.close();
  });

  test("a live consumer carries on after a nats-server restart", async () => {
    const root = unique("scribe.t");
    const bus = await NatsBus.connect(server.url);
    const got: string[] = [];
    await bus.consume({ durable: unique("d"), subject: `${root}.>`, concurrency: 2 }, async (m) => {
      got.push(text(m.data));
    });
    await bus.publish(`${root}.x`, bytes("before"), { id: `${root}-1` });
    await waitFor(() => got.length === 1, undefined, "the first message");
    await server.restart();
    // The client reconnects on its own; like the relay, retry the publish until the stream answers.
    for (let attempt = 0; ; attempt++) {
      try {
        await bus.publish(`${root}.x`, bytes("after"), { id: `${root}-2` });
        break;
      } catch (error) {
        if (attempt >= 20) throw error;
        await Bun.sleep(250);
      }
    }
    await waitFor(() => got.length === 2, 10_000, "the message published after the restart");
    expect(got).toEqual(["before", "after"]);
    await bus.close();
  }, 30_000);

  test("stored messages survive a nats-server crash", async () => {
    const root = unique("scribe.t");
    const durable = unique("d");
    const before = await NatsBus.connect(server.url);
    // The durable exists before the publish (as the service's do), then stops: the messages wait for it.
    await (
      await before.consume({ durable, subject: `${root}.>`, concurrency: 1 }, async () => {
        throw new Error("not yet");
      })
    ).stop();
    await before.publish(`${root}.x`, bytes("one"), { id: `${root}-1` });
    await before.publish(`${root}.x`, bytes("two"), { id: `${root}-2` });
    await before.close();

    await server.kill();
    await server.restart();

    const after = await NatsBus.connect(server.url);
    const got: string[] = [];
    await after.consume({ durable, subject: `${root}.>`, concurrency: 1 }, async (m) => {
      got.push(text(m.data));
    });
    await waitFor(() => got.length === 2, undefined, "both stored messages");
    expect(got).toEqual(["one", "two"]);
    await after.close();
  }, 20_000);
});
