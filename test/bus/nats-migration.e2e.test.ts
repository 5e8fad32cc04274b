/**
 * Moving from the stream an older release made (SCRIBE: limits retention, whose limits could drop work) to the
 * interest-retention stream, with durables holding work: nothing is lost and nothing is handled twice.
 */
import { afterAll, beforeAll, expect, spyOn, test } from "bun:test";
import { AckPolicy, DeliverPolicy, StorageType, connect, nanos } from "nats";
import { NatsBus, defaultStreamName, retiredStreamName } from "../../src/bus/nats.ts";
import { logger } from "../../src/logging/logger.ts";
import { bytes, gate, text, waitFor } from "../contracts/bus.contract.ts";
import { startNatsServer, type NatsServer } from "../support/nats-server.ts";

let server: NatsServer;
beforeAll(async () => {
  server = await startNatsServer();
});
afterAll(async () => {
  await server?.stop();
});

/** What the older release made: its stream and one durable per worker, as src/bus/nats.ts configured them. */
async function olderRelease(url: string) {
  const nc = await connect({ servers: url });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({
    name: retiredStreamName,
    subjects: ["scribe.>"],
    max_age: nanos(7 * 24 * 3_600_000),
    max_bytes: 1024 ** 3,
    storage: StorageType.File,
    duplicate_window: nanos(120_000),
  });
  const durable = (name: string, subject: string) =>
    jsm.consumers.add(retiredStreamName, {
      durable_name: name,
      filter_subject: subject,
      ack_wait: nanos(1_000),
      max_deliver: 5,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.New,
    });
  await durable("transcribe", "scribe.task.>");
  await durable("export", "scribe.export.>"); // nothing waiting for it
  return { nc, jsm, js: nc.jetstream() };
}

test("an older release's stream: its durables' work is handled once, new work goes to the new stream, the old stream goes", async () => {
  const busLog = logger("bus");
  const lines: string[] = [];
  const remember = (_fields: unknown, msg?: string) => void lines.push(msg ?? "");
  const warn = spyOn(busLog, "warn").mockImplementation(remember as never);
  const info = spyOn(busLog, "info").mockImplementation(remember as never);

  const old = await olderRelease(server.url);
  const ids = Array.from({ length: 10 }, (_, n) => `m${n}`);
  for (const id of ids) await old.js.publish("scribe.task.TaskCreated", bytes(id), { msgID: id });
  // An older worker finished m0 and m1, had m2..m4 in hand when it was stopped, and never saw m5..m9.
  const crashed = await connect({ servers: server.url });
  const batch = await (await crashed.jetstream().consumers.get(retiredStreamName, "transcribe")).fetch({ max_messages: 5, expires: 2_000 });
  for await (const msg of batch) if (["m0", "m1"].includes(text(msg.data))) await msg.ackAck();
  await crashed.close();

  // Two worker processes of this release, and the relay in the first.
  const handled: string[] = [];
  const started = gate();
  const processes = [await NatsBus.connect(server.url), await NatsBus.connect(server.url)];
  for (const bus of processes) {
    await bus.consume({ durable: "transcribe", subject: "scribe.task.>", concurrency: 2, ackWaitMs: 1_000 }, async (m) => {
      await started.promise;
      handled.push(text(m.data));
      expect(m.subject).toBe("scribe.task.TaskCreated");
    });
    await bus.consume({ durable: "export", subject: "scribe.export.>", concurrency: 1 }, async () => {});
  }
  const [relay] = processes;
  expect(await relay!.queueDepth("transcribe")).toBe(8); // the retired durable's backlog counts
  started.open();

  // The relay starts again from its checkpoint, behind what the older relay published: m8 and m9 again, then new work.
  for (const id of ["m8", "m9", "n0", "n1", "n2"]) await relay!.publish("scribe.task.TaskCreated", bytes(id), { id });
  // An older relay still running is refused from now on (its checkpoint stays; this release publishes those events).
  await expect(old.js.publish("scribe.task.TaskCreated", bytes("late"), { msgID: "late" })).rejects.toThrow();

  const expected = ["m2", "m3", "m4", "m5", "m6", "m7", "m8", "m9", "n0", "n1", "n2"];
  await waitFor(() => handled.length >= expected.length, 15_000, "every message");
  const streams = async () => {
    const names: string[] = [];
    for await (const name of old.jsm.streams.names()) names.push(name);
    return names;
  };
  for (let i = 0; i < 100 && (await streams()).includes(retiredStreamName); i++) await Bun.sleep(100);
  await Bun.sleep(1_500); // past ack_wait: a message handled and not acknowledged would be back by now
  expect([...handled].sort()).toEqual(expected);
  expect(await streams()).toEqual([defaultStreamName]);
  // Only the new work went to the new stream, and it left once acknowledged.
  const state = (await old.jsm.streams.info(defaultStreamName)).state;
  expect([state.last_seq, state.messages]).toEqual([3, 0]);
  expect(await relay!.queueDepth("transcribe")).toBe(0);

  expect(lines).toContain("retired stream found: its durables are drained before new work; the relay publishes to the new stream");
  expect(lines).toContain("retired stream sealed: nothing more can be published to it");
  expect(lines).toContain("durable of the retired stream drained and deleted");
  expect(lines).toContain("retired stream deleted: every durable on it was drained");
  warn.mockRestore();
  info.mockRestore();
  for (const bus of processes) await bus.close();
  await old.nc.close();
}, 30_000);

test("a retired durable no worker of this release takes keeps the old stream, named in a warning, until it is removed", async () => {
  const busLog = logger("bus");
  const warnings: { fields: unknown; msg: string }[] = [];
  const warn = spyOn(busLog, "warn").mockImplementation(((fields: unknown, msg?: string) => void warnings.push({ fields, msg: msg ?? "" })) as never);
  const old = await olderRelease(server.url);
  await old.js.publish("scribe.task.TaskCreated", bytes("t1"), { msgID: "t1" });
  await old.js.publish("scribe.export.ExportRequested", bytes("e1"), { msgID: "e1" }); // for a worker since removed

  const handled: string[] = [];
  const bus = await NatsBus.connect(server.url);
  await bus.consume({ durable: "transcribe", subject: "scribe.task.>", concurrency: 1 }, async (m) => void handled.push(text(m.data)));
  await bus.publish("scribe.task.TaskCreated", bytes("t2"), { id: "t2" }); // seals the old stream
  await waitFor(() => handled.length === 2, 10_000, "both transcriptions");
  const kept =
    "retired stream kept: durables no worker of this release takes still hold messages; delete them (nats consumer rm) once their work is not wanted";
  await waitFor(() => warnings.some((w) => w.msg === kept), 5_000, "the warning");
  expect(warnings.find((w) => w.msg === kept)!.fields).toMatchObject({ stream: retiredStreamName, durables: [{ durable: "export", messages: 1 }] });
  expect(await old.jsm.streams.info(retiredStreamName)).toBeDefined();
  await bus.close();

  // The operator removes it; the next start's relay finds the stream empty and deletes it.
  await old.jsm.consumers.delete(retiredStreamName, "export");
  const restarted = await NatsBus.connect(server.url);
  await restarted.consume({ durable: "transcribe", subject: "scribe.task.>", concurrency: 1 }, async (m) => void handled.push(text(m.data)));
  await restarted.publish("scribe.task.TaskCreated", bytes("t3"), { id: "t3" });
  await expect(old.jsm.streams.info(retiredStreamName)).rejects.toThrow("stream not found");
  await waitFor(() => handled.length === 3, undefined, "the work published after the restart");
  expect(handled).toEqual(["t1", "t2", "t3"]);
  warn.mockRestore();
  await restarted.close();
  await old.nc.close();
}, 30_000);
