import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { Leases, currentPidSpace, holdLeadership, type LeasedWork } from "../../src/core/lease.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";
import { startPeriodicJob } from "../../src/core/periodic-job.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-leases-"));
const stores: EmbeddedDocumentStore[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Two handles on one embedded store file, as two processes on one DATA_DIR have. */
function twoProcesses(name: string): [DocumentStore, DocumentStore] {
  mkdirSync(join(dir, name));
  const a = new EmbeddedDocumentStore(join(dir, name, "readmodels.sqlite"));
  const b = new EmbeddedDocumentStore(join(dir, name, "readmodels.sqlite"));
  stores.push(a, b);
  return [a, b];
}

const until = async (condition: () => boolean | Promise<boolean>, timeoutMs = 3000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await Bun.sleep(5);
  }
};

describe("leases", () => {
  test("one holder at a time; it renews under the same epoch; another takes over once it expires or is released, one epoch up", async () => {
    const [a, b] = twoProcesses("basic");
    let clock = 1_000_000;
    const first = new Leases(a, "first", () => clock);
    const second = new Leases(b, "second", () => clock);
    // A new lease's epoch is the time it is taken (ms), so one made anew still outranks every older epoch.
    expect(await first.acquire("relay", 1000)).toBe(1_000_000);
    expect(await second.acquire("relay", 1000)).toBeNull();
    clock += 900;
    expect(await first.acquire("relay", 1000)).toBe(1_000_000); // renewed until 1,001,900
    clock += 900;
    expect(await second.acquire("relay", 1000)).toBeNull();
    expect(await second.holderOf("relay")).toBe("first");
    clock += 200;
    expect(await second.acquire("relay", 1000)).toBe(1_002_000); // the time it is taken: more than one up
    expect([await first.acquire("relay", 1000), first.epochOf("relay"), second.epochOf("relay")]).toEqual([null, null, 1_002_000]);
    await second.release("relay");
    expect(await first.acquire("relay", 1000)).toBe(1_002_001); // taken in the same millisecond: one up
  });

  test("of many processes racing for a lease, new or run out, exactly one gets it, under the next epoch", async () => {
    const [a, b] = twoProcesses("race");
    let clock = 1_000_000;
    const contenders = Array.from({ length: 20 }, (_, i) => new Leases(i % 2 ? a : b, `p${i}`, () => clock));
    const won = await Promise.all(contenders.map((l) => l.acquire("projections", 5000)));
    expect(won.filter((epoch) => epoch !== null)).toEqual([1_000_000]);
    // Run out: the others race to take it over (its holder would renew it, under its epoch).
    clock += 6000;
    const others = contenders.filter((_, i) => won[i] === null);
    const again = await Promise.all(others.map((l) => l.acquire("projections", 5000)));
    expect(again.filter((epoch) => epoch !== null)).toEqual([1_006_000]);
  });

  test("leadership: one runner among two; when the leader is cut off it stops itself, and the other takes over", async () => {
    const [a, b] = twoProcesses("leadership");
    const running = new Set<string>();
    const work = (who: string) => async (): Promise<LeasedWork> => {
      running.add(who);
      return { stop: async () => void running.delete(who) };
    };
    let cutOff = false;
    const flaky = new Leases(a, "A");
    const original = flaky.acquire.bind(flaky);
    flaky.acquire = (name, ttl) => (cutOff ? Promise.reject(new Error("store unreachable")) : original(name, ttl));
    const leaderA = holdLeadership(flaky, "relay", work("A"), { ttlMs: 300, log: () => undefined });
    await until(() => running.has("A"));
    const leaderB = holdLeadership(new Leases(b, "B"), "relay", work("B"), { ttlMs: 300, log: () => undefined });
    await Bun.sleep(400);
    expect([...running]).toEqual(["A"]);
    expect([leaderA.isHeld(), leaderB.isHeld()]).toEqual([true, false]);
    const epochA = leaderA.epoch()!;
    expect(epochA).toBeGreaterThan(0);

    const consoleError = console.error;
    console.error = () => undefined;
    cutOff = true;
    try {
      // A stops by 2/3 of its lease; B only takes over once the lease has expired: never both at once.
      let overlap = false;
      await until(() => {
        if (running.size > 1) overlap = true;
        return running.has("B");
      }, 3000);
      expect(overlap).toBe(false);
      expect(leaderA.isHeld()).toBe(false);
      // The lease changed hands: B's checkpoint writes are fenced with the next epoch.
      expect(leaderB.epoch()!).toBeGreaterThan(epochA);
    } finally {
      console.error = consoleError;
    }
    await leaderA.stop();
    await leaderB.stop();
    expect(running.size).toBe(0);
  });

  test("a timed job runs once per period however many processes run it", async () => {
    const [a, b] = twoProcesses("jobs");
    const everyMs = 200;
    const runs: number[] = [];
    const jobs = [a, b, a, b].map((db) => startPeriodicJob("count", async () => void runs.push(performance.now()), { everyMs, firstAfterMs: 1, across: db }));
    try {
      // It keeps running, period after period: six runs come, however long a slow machine takes to make them.
      await until(() => runs.length >= 6, 30 * everyMs);
    } finally {
      for (const job of jobs) job.stop();
    }
    // One run per period, not four: all four ask each period, and the lease (90 % of the period) lets one of them
    // run. Runs of one period would come within milliseconds of each other; each run comes at least the lease after
    // the one before, less the time taking the lease took, for which half a period leaves plenty of room.
    const gaps = runs.slice(1).map((at, i) => at - runs[i]!);
    expect(gaps.filter((gap) => gap < everyMs / 2)).toEqual([]);
  });
});

describe("a holder that is gone", () => {
  const hostname = require("node:os").hostname() as string;
  const here = currentPidSpace() ?? "this machine and PID namespace";
  const me = { pid: process.pid, pidSpace: here };

  test("on this machine and in this PID namespace: its lease is taken at once (a restart after kill -9), one epoch up", async () => {
    const [a, b] = twoProcesses("dead-holder");
    const exited = Bun.spawn(["true"]);
    await exited.exited;
    const alive = Bun.spawn(["sleep", "30"]);
    try {
      expect(await new Leases(a, `${hostname}:${alive.pid}:alive`, Date.now, { pid: alive.pid, pidSpace: here }).acquire("live", 60_000)).not.toBeNull();
      expect(await new Leases(b, "other", Date.now, me).acquire("live", 60_000)).toBeNull();
    } finally {
      alive.kill();
    }
    const dead = (await new Leases(a, `${hostname}:${exited.pid}:gone`, Date.now, { pid: exited.pid, pidSpace: here }).acquire("dead", 60_000))!;
    expect(await new Leases(b, "other", Date.now, me).acquire("dead", 60_000)).toBeGreaterThan(dead);
  });

  test("with the same host name and pid in another PID namespace (another container), or where unknown: its lease runs out first", async () => {
    const [a, b] = twoProcesses("other-namespace");
    const exited = Bun.spawn(["true"]);
    await exited.exited;
    // Same host name and pid, and that pid is no process here: yet it may be a live one in the other container.
    const holder = `${hostname}:${exited.pid}:container`;
    expect(await new Leases(a, holder, Date.now, { pid: exited.pid, pidSpace: `${here}-other` }).acquire("live", 60_000)).not.toBeNull();
    expect(await new Leases(a, `${holder}-unknown`, Date.now, { pid: exited.pid, pidSpace: null }).acquire("unknown", 60_000)).not.toBeNull();
    const taker = new Leases(b, `${hostname}:${process.pid}:taker`, Date.now, me);
    expect([await taker.acquire("live", 60_000), await taker.acquire("unknown", 60_000)]).toEqual([null, null]);
    expect(await taker.holderOf("live")).toBe(holder);
  });
});

test("work that fails by itself while the lease is held is started again (a relay that could not read the log)", async () => {
  const [a] = twoProcesses("restart");
  let starts = 0;
  let fail: (error: Error) => void = () => undefined;
  const consoleError = console.error;
  console.error = () => undefined;
  const leadership = holdLeadership(
    new Leases(a, "only"),
    "relay",
    async () => {
      starts++;
      const done = new Promise<void>((_, reject) => (fail = reject));
      return { done, stop: async () => undefined };
    },
    { ttlMs: 300, log: () => undefined },
  );
  try {
    await until(() => starts === 1);
    fail(new Error("bus refused the event"));
    await until(() => starts === 2, 2000);
    expect(leadership.isHeld()).toBe(true);
  } finally {
    console.error = consoleError;
    await leadership.stop();
  }
});

test("a start that takes longer than the lease (a projection rebuilt from the whole log) renews it meanwhile: no one else takes it", async () => {
  const [a, b] = twoProcesses("long-start");
  let started = false;
  let stopped = false;
  const leaderA = holdLeadership(
    new Leases(a, "A"),
    "projections",
    async () => {
      await Bun.sleep(900); // three lease lifetimes
      started = true;
      return { stop: async () => void (stopped = true) };
    },
    { ttlMs: 300, log: () => undefined },
  );
  await until(async () => (await new Leases(b, "B").holderOf("projections")) === "A");
  let takenByB = false;
  const leaderB = holdLeadership(
    new Leases(b, "B"),
    "projections",
    async () => {
      takenByB = true;
      return { stop: async () => undefined };
    },
    { ttlMs: 300, log: () => undefined },
  );
  try {
    await until(() => started, 3000);
    await Bun.sleep(200);
    expect({ takenByB, stopped, heldByA: leaderA.isHeld() }).toEqual({ takenByB: false, stopped: false, heldByA: true });
  } finally {
    await leaderA.stop();
    await leaderB.stop();
  }
});

test("a one-off holder (a CLI) that loses its lease to another process stops at once, instead of writing beside it", async () => {
  const [a, b] = twoProcesses("cli-lost");
  const cli = new Leases(a, "cli");
  expect(await cli.acquire("projections", 300)).not.toBeNull();
  let heldAtTheEnd = true;
  const started = Date.now();
  const working = cli.whileHeld("projections", 300, async (lease) => {
    // Work that would go on for 10 s; meanwhile another holder takes the lease (an operator forced it, say).
    await b.collection("leases").updateOne({ _id: "projections" }, { $set: { holder: "server", expiresAt: Date.now() + 60_000 } });
    for (let i = 0; i < 200 && lease.isHeld(); i++) await Bun.sleep(50);
    heldAtTheEnd = lease.isHeld();
  });
  await expect(working).rejects.toThrow("lost the projections lease (another process holds it now); stopping");
  expect(Date.now() - started).toBeLessThan(2_000);
  await until(() => !heldAtTheEnd);
  // The lease stays the other holder's: the CLI did not release what is no longer its own.
  expect(await new Leases(b, "x").holderOf("projections")).toBe("server");
});
