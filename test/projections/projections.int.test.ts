import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteEventStore } from "../../src/eventstore/sqlite.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { logger } from "../../src/logging/logger.ts";
import { ProjectionRunner, WORKING_BEAT_MS } from "../../projections/runner.ts";
import { Checkpoints, checkpointId } from "../../projections/checkpoints.ts";
import { waitForCheckpoints } from "../../projections/wait.ts";
import { counterProjection, type CounterView } from "../support/counter-projection.ts";
import type { NewEvent } from "../../src/core/event.ts";

const metadata = { correlationId: "c", causationId: null, userId: null, system: "test" };
const opened = (): NewEvent => ({ id: crypto.randomUUID(), type: "CounterOpened", data: { limit: 100 }, metadata });
const incremented = (by: number): NewEvent => ({ id: crypto.randomUUID(), type: "CounterIncremented", data: { by }, metadata });

const dirs: string[] = [];
function fresh() {
  const dir = mkdtempSync(join(tmpdir(), "scribe-projections-"));
  dirs.push(dir);
  return { store: new SqliteEventStore(join(dir, "events.sqlite")), db: new EmbeddedDocumentStore(join(dir, "readmodels.sqlite")) };
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("projection runner", () => {
  test("folds live events into documents and waitFor gives read-your-writes", async () => {
    const { store, db } = fresh();
    const runner = new ProjectionRunner(store, db, [counterProjection]);
    await runner.start();
    await store.append("counter-a", [opened(), incremented(2)], { expectedRevision: "no_stream" });
    const { position } = await store.append("counter-a", [incremented(3)], { expectedRevision: 1 });
    await runner.waitFor(position);
    expect(await db.collection<CounterView>("counters").findOne({ _id: "counter-a" })).toMatchObject({ value: 5, increments: 2, _position: position });
    await runner.stop();
  });

  test("a projection that fails is not stopped for good: it subscribes again from its last event, skipping none", async () => {
    const { store, db } = fresh();
    let failuresLeft = 2;
    const flaky = {
      ...counterProjection,
      async apply(event: Parameters<typeof counterProjection.apply>[0], target: Parameters<typeof counterProjection.apply>[1]) {
        if (event.type === "CounterIncremented" && failuresLeft > 0) {
          failuresLeft--;
          throw new Error("read-model store unreachable");
        }
        await counterProjection.apply(event, target);
      },
    };
    // What the runner tells operators: one error line per failure, with the projection's name.
    const logged: { projection?: string; msg?: string }[] = [];
    const log = logger("projections");
    const logError = log.error;
    log.error = ((fields: { projection?: string }, msg?: string) => void logged.push({ ...fields, msg })) as typeof log.error;
    const runner = new ProjectionRunner(store, db, [flaky]);
    try {
      await runner.start();
      await store.append("counter-f", [opened(), incremented(2), incremented(3)], { expectedRevision: "no_stream" });
      const last = (await store.readStream("counter-f")).at(-1)!.position;
      await runner.waitFor(last, null, 10_000);
      expect(await db.collection<CounterView>("counters").findOne({ _id: "counter-f" })).toMatchObject({ value: 5, increments: 2 });
      expect(logged.filter((line) => line.projection === "counters" && line.msg?.includes("failed"))).toHaveLength(2);
    } finally {
      log.error = logError;
      await runner.stop();
    }
  }, 15_000);

  test("a runner that may not write for a moment (its lease renewed late after a stall) goes on once it may again", async () => {
    const { store, db } = fresh();
    let mayWrite = true;
    const runner = new ProjectionRunner(store, db, [counterProjection], () => mayWrite);
    try {
      await runner.start();
      await store.append("counter-s", [opened()], { expectedRevision: "no_stream" });
      await runner.waitFor((await store.readStream("counter-s")).at(-1)!.position);
      // The stall: an event arrives while the lease is not trusted; the subscription fails on it.
      mayWrite = false;
      await store.append("counter-s", [incremented(2)], { expectedRevision: 0 });
      for (let i = 0; i < 100 && runner.notRunning(0).length === 0; i++) await Bun.sleep(10);
      expect(runner.notRunning(0).map((p) => p.name)).toEqual(["counters"]);
      expect(runner.notRunning(60_000)).toEqual([]); // within the grace readiness allows
      // The lease is renewed: the runner folds what it missed and what comes after, without a restart.
      mayWrite = true;
      const { position } = await store.append("counter-s", [incremented(3)], { expectedRevision: 1 });
      await runner.waitFor(position, null, 10_000);
      expect(await db.collection<CounterView>("counters").findOne({ _id: "counter-s" })).toMatchObject({ value: 5, increments: 2 });
      expect(runner.notRunning(0)).toEqual([]);
    } finally {
      await runner.stop();
    }
  }, 15_000);

  test("resumes from its checkpoint and is idempotent when events arrive again", async () => {
    const { store, db } = fresh();
    const first = new ProjectionRunner(store, db, [counterProjection]);
    await first.start();
    const { position } = await store.append("counter-b", [opened(), incremented(1), incremented(1)], { expectedRevision: "no_stream" });
    await first.waitFor(position);
    await first.stop();
    expect(await new Checkpoints(db).load("projection:counters")).toBe(position);

    // A crash before the checkpoint was saved: the runner starts from an older checkpoint.
    await new Checkpoints(db).save("projection:counters", 0);
    const second = new ProjectionRunner(store, db, [counterProjection]);
    await second.start();
    const next = await store.append("counter-b", [incremented(10)], { expectedRevision: 2 });
    await second.waitFor(next.position);
    expect(await db.collection<CounterView>("counters").findOne({ _id: "counter-b" })).toMatchObject({ value: 12, increments: 3 });
    await second.stop();
  });

  test("rebuild empties the read model and folds the whole log again", async () => {
    const { store, db } = fresh();
    await store.append("counter-c", [opened(), incremented(4)], { expectedRevision: "no_stream" });
    await store.append("counter-d", [opened()], { expectedRevision: "no_stream" });
    const counters = db.collection<CounterView>("counters");
    await counters.insertOne({ _id: "stale", value: 99, increments: 99, _position: 1 });
    const results = await new ProjectionRunner(store, db, [counterProjection]).rebuild();
    expect(results).toEqual([{ name: "counters", events: 3 }]);
    expect(await counters.findOne({ _id: "stale" })).toBeNull();
    expect(await counters.findOne({ _id: "counter-c" })).toMatchObject({ value: 4 });
    expect(await counters.countDocuments({})).toBe(2);
  });

  test("a projection whose version changed is rebuilt from the log when the runner starts", async () => {
    const { store, db } = fresh();
    await store.append("counter-e", [opened(), incremented(6)], { expectedRevision: "no_stream" });
    const first = new ProjectionRunner(store, db, [counterProjection]);
    await first.start();
    await first.waitFor(2);
    await first.stop();
    const counters = db.collection<CounterView>("counters");
    await counters.insertOne({ _id: "left-from-the-old-shape", value: 1, increments: 1, _position: 1 });
    // Started again unchanged: nothing is rebuilt.
    const same = new ProjectionRunner(store, db, [counterProjection]);
    await same.start();
    await same.stop();
    expect(await counters.findOne({ _id: "left-from-the-old-shape" })).not.toBeNull();
    // Version 2: emptied and folded again before it subscribes.
    const changed = new ProjectionRunner(store, db, [{ ...counterProjection, version: 2 }]);
    await changed.start();
    await changed.waitFor(2);
    await changed.stop();
    expect(await counters.findOne({ _id: "left-from-the-old-shape" })).toBeNull();
    expect(await counters.findOne({ _id: "counter-e" })).toMatchObject({ value: 6 });
    expect((await new Checkpoints(db).entry("projection:counters")).version).toBe(2);
  });

  test("an unknown projection name is refused", async () => {
    const { store, db } = fresh();
    expect(new ProjectionRunner(store, db, [counterProjection]).rebuild(["nope"])).rejects.toThrow(/unknown projection/);
  });

  describe("read-your-writes patience: a wait gives up when the projections stand still, not while they are busy", () => {
    const slowBy = (ms: number) => ({
      ...counterProjection,
      async apply(event: Parameters<typeof counterProjection.apply>[0], target: Parameters<typeof counterProjection.apply>[1]) {
        await Bun.sleep(ms);
        await counterProjection.apply(event, target);
      },
    });

    test("events that each take longer than the stall period, and all of them together longer still, are waited for", async () => {
      const { store, db } = fresh();
      const runner = new ProjectionRunner(store, db, [slowBy(150)]);
      await runner.start();
      try {
        await store.append("counter-s", [opened(), incremented(1), incremented(2)], { expectedRevision: "no_stream" });
        const last = (await store.readStream("counter-s")).at(-1)!.position;
        const started = Date.now();
        await runner.waitFor(last, null, { stallMs: 100, capMs: 5_000 });
        expect(Date.now() - started).toBeGreaterThanOrEqual(300);
        expect(await db.collection<CounterView>("counters").findOne({ _id: "counter-s" })).toMatchObject({ value: 3 });
      } finally {
        await runner.stop();
      }
    });

    test("a projection failing over and over (back-off, nothing applied) is given up on after the stall period, with the reason", async () => {
      const { store, db } = fresh();
      const broken = {
        ...counterProjection,
        async apply() {
          throw new Error("read-model store unreachable");
        },
      };
      const log = logger("projections");
      const logError = log.error;
      log.error = (() => undefined) as typeof log.error;
      const runner = new ProjectionRunner(store, db, [broken]);
      try {
        await runner.start();
        const { position } = await store.append("counter-b", [opened()], { expectedRevision: "no_stream" });
        const started = Date.now();
        await expect(runner.waitFor(position, null, { stallMs: 200, capMs: 5_000 })).rejects.toThrow(
          `projections did not reach position ${position}: no progress for 200 ms`,
        );
        expect(Date.now() - started).toBeLessThan(2_000);
      } finally {
        log.error = logError;
        await runner.stop();
      }
    });

    test("however busy, a wait ends at its cap", async () => {
      const { store, db } = fresh();
      const runner = new ProjectionRunner(store, db, [slowBy(1_000)]);
      await runner.start();
      try {
        const { position } = await store.append("counter-c", [opened()], { expectedRevision: "no_stream" });
        await expect(runner.waitFor(position, null, { stallMs: 50, capMs: 300 })).rejects.toThrow("not within 300 ms");
      } finally {
        await runner.stop();
      }
    });

    test("a process whose projections run elsewhere waits on their checkpoints the same way", async () => {
      const { db } = fresh();
      const checkpoints = new Checkpoints(db);
      const wait = waitForCheckpoints(checkpoints, ["counters"], { stallMs: 150, capMs: 5_000 });
      // Saved a step at a time, 100 ms apart: 500 ms in all, never 150 ms without a step.
      const stepping = (async () => {
        for (let position = 1; position <= 5; position++) {
          await Bun.sleep(100);
          await checkpoints.save(checkpointId("counters"), position, 1);
        }
      })();
      await wait(5);
      await stepping;
      await expect(wait(6)).rejects.toThrow("projection counters did not reach position 6: no progress for 150 ms");
    });

    test("elsewhere, a hundred waiting requests share one watcher: one read of the checkpoints per poll, not one each", async () => {
      const { db } = fresh();
      const checkpoints = new Checkpoints(db);
      let reads = 0;
      const entries = checkpoints.entries.bind(checkpoints);
      checkpoints.entries = (names) => (reads++, entries(names));
      const wait = waitForCheckpoints(checkpoints, ["counters", "other"], { stallMs: 5_000, capMs: 5_000 });
      const waiting = Array.from({ length: 100 }, (_, i) => wait(1 + (i % 3)));
      await Bun.sleep(200);
      const readsWhileWaiting = reads;
      // 200 ms at one read per 10 ms poll: about 20, where a poll per request made about 2,000 (2 names each).
      expect(readsWhileWaiting).toBeLessThan(60);
      await checkpoints.save(checkpointId("counters"), 3, 1);
      await checkpoints.save(checkpointId("other"), 3, 1);
      await Promise.all(waiting);
      await Bun.sleep(50);
      const afterAll = reads;
      await Bun.sleep(100);
      expect(reads).toBe(afterAll); // nobody waits: nothing is read
    });

    test("elsewhere, an event that takes longer than the stall period to apply is waited for: the checkpoint beats meanwhile", async () => {
      const { store, db } = fresh();
      const runner = new ProjectionRunner(store, db, [slowBy(2.5 * WORKING_BEAT_MS)]);
      await runner.start();
      try {
        const { position } = await store.append("counter-l", [opened()], { expectedRevision: "no_stream" });
        await waitForCheckpoints(new Checkpoints(db), ["counters"], { stallMs: 1.5 * WORKING_BEAT_MS, capMs: 10_000 })(position);
        expect(await db.collection<CounterView>("counters").findOne({ _id: "counter-l" })).toMatchObject({ value: 0 });
      } finally {
        await runner.stop();
      }
    });
  });
});
