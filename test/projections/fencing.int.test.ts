/**
 * Fenced checkpoints: a writer that lost its lease without knowing it (paused past it: its last check of the
 * lease said yes) cannot write a checkpoint over its successor's, and stops when it tries. Two handles on one
 * embedded store file stand for two processes on one DATA_DIR; a fence that always says "held" stands for the
 * paused holder, whose check came just before its pause.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { InProcessBus } from "../../src/bus/in-process.ts";
import { LeaseFencedError, Leases, type LeaseFence } from "../../src/core/lease.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { Checkpoints, checkpointId } from "../../projections/checkpoints.ts";
import { buildShadow, shadowName, swapShadowIn } from "../../projections/rebuild.ts";
import { startRelay } from "../../workers/relay.ts";
import { counterProjection, type CounterView } from "../support/counter-projection.ts";
import type { NewEvent } from "../../src/core/event.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";
import type { Projection } from "../../src/core/projection.ts";

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
const opened = (): NewEvent => ({ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 100 }, metadata });
const incremented = (by: number): NewEvent => ({ id: crypto.randomUUID(), type: "CounterIncremented", data: { by }, metadata });

const dirs: string[] = [];
const closing: { close(): Promise<void> }[] = [];
function twoProcesses() {
  const dir = mkdtempSync(join(tmpdir(), "scribe-fencing-"));
  dirs.push(dir);
  const store = new SqliteEventStore(join(dir, "events.sqlite"));
  const a = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
  const b = new EmbeddedDocumentStore(join(dir, "readmodels.sqlite"));
  closing.push(store, a, b);
  return { dir, store, a, b };
}
afterEach(async () => {
  for (const handle of closing.splice(0)) await handle.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(5);
  }
};

/** A holder that went on believing in its lease: what a paused process does once it runs again. */
const believing = (epoch: number | null): LeaseFence => ({ isHeld: () => true, epoch: () => epoch });
/** The holder of lease `name` through `leases`, as the service's leadership shows it. */
const holding = (leases: Leases, name: string): LeaseFence => ({ isHeld: () => leases.epochOf(name) !== null, epoch: () => leases.epochOf(name) });

/** The counters a fresh replay of the whole log makes. */
async function replayed(dir: string, store: SqliteEventStore, projection: Projection = counterProjection): Promise<CounterView[]> {
  const fresh = new EmbeddedDocumentStore(join(dir, "replay.sqlite"));
  closing.push(fresh);
  await new ProjectionRunner(store, fresh, [projection]).rebuild();
  return fresh.collection<CounterView>("counters").find({}, { sort: { _id: 1 } });
}
const counters = (db: DocumentStore) => db.collection<CounterView>("counters").find({}, { sort: { _id: 1 } });

describe("fenced checkpoints", () => {
  test("A takes the lease and is paused; B takes it over (a later epoch): A's late saves are refused, A pauses, and the read models equal a fresh replay", async () => {
    const { dir, store, a, b } = twoProcesses();
    let clock = 1_000_000;
    const leasesA = new Leases(a, "A", () => clock);
    const leasesB = new Leases(b, "B", () => clock);
    const epochA = (await leasesA.acquire("projections", 1000))!;
    expect(epochA).not.toBeNull();
    // What A applies, to see it stop.
    const appliedByA: number[] = [];
    const watchedA: Projection = {
      ...counterProjection,
      apply: async (event, db, context) => {
        appliedByA.push(event.position);
        await counterProjection.apply(event, db, context);
      },
    };
    const runnerA = new ProjectionRunner(store, a, [watchedA], believing(leasesA.epochOf("projections")));
    const runnerB = new ProjectionRunner(store, b, [counterProjection], holding(leasesB, "projections"));
    try {
      await runnerA.start();
      const first = await store.append("counter-a", [opened(), incremented(1)], { expectedRevision: "no_stream" });
      await runnerA.waitFor(first.position);
      await until(async () => (await new Checkpoints(a).load(checkpointId("counters"))) === first.position);

      // A is paused past its lease, renewing nothing; B takes it over and claims the checkpoint on start.
      clock += 2000;
      const epochB = (await leasesB.acquire("projections", 1000))!;
      expect(epochB).toBeGreaterThan(epochA);
      await runnerB.start();
      const stored = await b.collection("checkpoints").findOne({ _id: checkpointId("counters") });
      expect(stored).toMatchObject({ position: first.position, epoch: epochB });

      // A runs again: it folds the next event (its check said yes before the pause), but its checkpoint save is refused.
      const second = await store.append("counter-a", [incremented(2)], { expectedRevision: 1 });
      await runnerB.waitFor(second.position);
      await runnerA.waitFor(second.position);
      await expect(new Checkpoints(a, believing(epochA)).save(checkpointId("counters"), second.position + 100)).rejects.toBeInstanceOf(LeaseFencedError);
      // From the refusal on, A writes nothing: the next event finds it paused, as when its lease is not trusted.
      await until(async () => {
        const third = await store.append("counter-b", [opened()], { expectedRevision: "any" });
        await runnerB.waitFor(third.position);
        return runnerA.notRunning(0).length > 0;
      });
      expect(runnerA.notRunning(0).map((p) => p.name)).toEqual(["counters"]);
      const stoppedAt = appliedByA.length;
      const last = await store.append("counter-a", [incremented(3)], { expectedRevision: 2 });
      await runnerB.waitFor(last.position);
      await Bun.sleep(100);
      expect(appliedByA.length).toBe(stoppedAt);

      // Stopped (its leadership resigns), A saves nothing over B's checkpoint.
      await runnerA.stop();
      await runnerB.stop();
      expect(await b.collection("checkpoints").findOne({ _id: checkpointId("counters") })).toMatchObject({ position: last.position, epoch: epochB });
      expect(await counters(b)).toEqual(await replayed(dir, store));
    } finally {
      await runnerA.stop();
      await runnerB.stop();
    }
  }, 20_000);

  test("a paused writer's rebuild does not swap its shadow in over the new holder's read model", async () => {
    const { store, a, b } = twoProcesses();
    await store.append("counter-r", [opened(), incremented(5)], { expectedRevision: "no_stream" });
    const built = await buildShadow(store, a, counterProjection);
    // B took the lease over meanwhile and claimed the checkpoint.
    await new Checkpoints(b, believing(2)).claim(checkpointId("counters"));
    await expect(swapShadowIn(store, a, new Checkpoints(a, believing(1)), counterProjection, built.position)).rejects.toBeInstanceOf(LeaseFencedError);
    expect(await counters(b)).toEqual([]);
    expect(await a.collection(shadowName("counters")).countDocuments()).toBe(1);
    // The holder's own swap goes through.
    await swapShadowIn(store, b, new Checkpoints(b, believing(2)), counterProjection, built.position);
    expect((await counters(b)).map((doc) => doc.value)).toEqual([5]);
  });

  test("a lease made anew (the leases cleared, the checkpoints kept) outranks the epochs the checkpoints were written under", async () => {
    const { a } = twoProcesses();
    const earlier = new Leases(a, "earlier", () => 1_000_000);
    const epoch = (await earlier.acquire("projections", 1000))!;
    await new Checkpoints(a, holding(earlier, "projections")).save(checkpointId("counters"), 5);
    await a.collection("leases").deleteMany({});
    const later = new Leases(a, "later", () => 1_000_500);
    expect((await later.acquire("projections", 1000))!).toBeGreaterThan(epoch);
    await new Checkpoints(a, holding(later, "projections")).save(checkpointId("counters"), 6);
    expect(await new Checkpoints(a).load(checkpointId("counters"))).toBe(6);
  });

  test("a checkpoint saved before epochs is taken over by the first fenced writer; unfenced saves keep the epoch", async () => {
    const { a } = twoProcesses();
    const id = checkpointId("counters");
    await a.collection("checkpoints").insertOne({ _id: id, position: 7, version: 1 });
    expect(await new Checkpoints(a, believing(3)).load(id)).toBe(7);
    await new Checkpoints(a, believing(3)).save(id, 9, 1, 2);
    expect(await a.collection("checkpoints").findOne({ _id: id })).toEqual({ _id: id, position: 9, version: 1, beat: 2, epoch: 3 });
    // A tool alone on the store (no lease) moves the position and leaves the fence in place.
    await new Checkpoints(a).save(id, 11);
    expect(await a.collection("checkpoints").findOne({ _id: id })).toEqual({ _id: id, position: 11, version: 1, epoch: 3 });
    await expect(new Checkpoints(a, believing(2)).save(id, 12)).rejects.toBeInstanceOf(LeaseFencedError);
    await expect(new Checkpoints(a, believing(null)).save(id, 12)).rejects.toBeInstanceOf(LeaseFencedError);
    // Claimed before its first save, a checkpoint reads as the start of the log.
    expect(await new Checkpoints(a, believing(1)).entry(checkpointId("fresh"))).toEqual({ position: 0, version: 1, beat: 0 });
    expect((await new Checkpoints(a).entries([checkpointId("fresh")])).get(checkpointId("fresh"))).toEqual({ position: 0, beat: 0 });
  });

  test("a relay whose checkpoint save is refused (another relay holds the lease now) stops publishing", async () => {
    const { store, a, b } = twoProcesses();
    const bus = new InProcessBus();
    closing.push(bus);
    const published: string[] = [];
    await bus.consume({ durable: "spy", subject: "scribe.>", concurrency: 4 }, async (m) => void published.push(m.id));
    const relayA = await startRelay({ store, bus, checkpoints: new Checkpoints(a, believing(1)) });
    const failed = relayA.done.then(
      () => null,
      (error: unknown) => error,
    );
    const { position } = await store.append("counter-1", [opened()], { expectedRevision: "no_stream" });
    await until(async () => published.length === 1 && (await new Checkpoints(b).load("relay")) === position);
    // B's relay starts: reading its checkpoint claims it for epoch 2.
    expect(await new Checkpoints(b, believing(2)).load("relay")).toBeGreaterThanOrEqual(0);
    await store.append("counter-2", [opened()], { expectedRevision: "no_stream" });
    await until(() => published.length === 2);
    await store.append("counter-3", [opened()], { expectedRevision: "no_stream" });
    expect(await failed).toBeInstanceOf(LeaseFencedError);
    expect(published).toHaveLength(2);
    expect(await b.collection("checkpoints").findOne({ _id: "relay" })).toMatchObject({ epoch: 2 });
    await relayA.stop();
  });
});
