/**
 * The embedded store's upkeep off its writes as the service sets it up (src/adapters.ts embeddedUpkeep:
 * src/readmodels/embedded-text-merges.ts, src/core/wal-checkpoints.ts), on a real SQLite file: a text index merged in
 * steps after the writes, with FTS5's automerge off; the WAL checkpointed by a thread, with the store's connection never
 * checkpointing, and its writes waiting while the thread catches up once the WAL is long, so that it starts over; the
 * connection checkpointing by itself again if the thread cannot. Without that upkeep (a tool), SQLite
 * checkpoints as usual and the index is still merged, a step a turn.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { WalCheckpoints } from "../../src/core/wal-checkpoints.ts";
import { embeddedUpkeep } from "../../src/adapters.ts";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "scribe-maintenance-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const words = "so we will now look at the numbers from last week and what they mean";

/** Writes `batches` batches of 20 documents, one a turn, as the search projection does. */
async function writeBatches(store: EmbeddedDocumentStore, batches: number): Promise<void> {
  const collection = store.collection("segments");
  for (let b = 0; b < batches; b++) {
    await collection.insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: `${b}:${i}`, owner: 1, words: `${words} w${b}x${i}` })));
    await Bun.sleep(0);
  }
}

/** Whether FTS5 finds anything left to merge (it adds 2 or more to total_changes when it merges). */
function leftToMerge(path: string): boolean {
  const db = new Database(path);
  try {
    const before = (db.query("SELECT total_changes() AS n").get() as { n: number }).n;
    db.run(`INSERT INTO "segments:text" ("segments:text", rank) VALUES ('merge', 32)`);
    return (db.query("SELECT total_changes() AS n").get() as { n: number }).n - before >= 2;
  } finally {
    db.close();
  }
}

describe("a text index on the embedded store", () => {
  test("is merged in steps after the writes, automerge off, until nothing is left to merge; searches find every document", async () => {
    const path = join(dir, "readmodels.sqlite");
    const store = new EmbeddedDocumentStore(path, embeddedUpkeep);
    try {
      await store.collection("segments").createTextIndex({ scope: "owner", field: "words" });
      await writeBatches(store, 150);
      await store.maintenanceSettled();
      const found = await store.collection("segments").searchText(1, [{ words: ["numbers"], prefix: false }], { skip: 0, limit: 1, atMost: 10_000 });
      expect(found.total).toBe(3000);
      const one = await store.collection("segments").searchText(1, [{ words: ["w77x3"], prefix: false }], { skip: 0, limit: 5, atMost: 10 });
      expect(one.hits.map((hit) => hit.document._id)).toEqual(["77:3"]);
    } finally {
      await store.close();
    }
    const db = new Database(path);
    try {
      expect(db.query(`SELECT v FROM "segments:text_config" WHERE k = 'automerge'`).get()).toEqual({ v: 0 });
      db.run(`INSERT INTO "segments:text" ("segments:text", rank) VALUES ('integrity-check', 0)`);
    } finally {
      db.close();
    }
    // Merged as it went: nothing left for a step to do. Without the steps (automerge off) 150 writes leave plenty.
    expect(leftToMerge(path)).toBe(false);
  });

  test("with no steps taken after the writes, FTS5 leaves segments to merge (what the steps above did)", async () => {
    const path = join(dir, "unmerged.sqlite");
    const store = new EmbeddedDocumentStore(path, embeddedUpkeep);
    await store
      .collection("segments")
      .createTextIndex({ scope: "owner", field: "words" })
      .finally(() => store.close());
    // Written past the store, as the writes before this change left it to FTS5: no step after them.
    const db = new Database(path);
    db.run("PRAGMA journal_mode = WAL");
    const insert = db.prepare(`INSERT INTO "segments" (id, doc) VALUES (?, ?)`);
    for (let b = 0; b < 40; b++) db.transaction(() => insert.run(`${b}`, JSON.stringify({ _id: `${b}`, owner: 1, words })))();
    db.close();
    expect(leftToMerge(path)).toBe(true);
  });
});

describe("the embedded store's WAL", () => {
  test("is checkpointed by a thread: the connection does not checkpoint by itself, and the pages reach the database file", async () => {
    const path = join(dir, "readmodels.sqlite");
    const store = new EmbeddedDocumentStore(path, embeddedUpkeep);
    try {
      const connection = (store as unknown as { db: Database }).db;
      expect(connection.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 0 });
      const before = statSync(path).size;
      const collection = store.collection("plain");
      // Two bursts a checkpoint interval apart: each write burst starts at most one checkpoint.
      for (const burst of [0, 1]) {
        await collection.insertMany(Array.from({ length: 2000 }, (_, i) => ({ _id: `${burst}:${i}`, text: words.repeat(4) })));
        await store.maintenanceSettled();
        await Bun.sleep(300);
      }
      await collection.insertOne({ _id: "last", text: "x" });
      await store.maintenanceSettled();
      // In the database file, not only in the WAL: a checkpoint copied them (the connection would not have).
      expect(statSync(path).size).toBeGreaterThan(before + 1_000_000);
      expect(await collection.countDocuments({})).toBe(4001);
    } finally {
      await store.close();
    }
  });

  test("stays bounded while writes go on: past catchUpFrames the thread catches up while the writes wait, and the WAL starts over", async () => {
    /** The WAL's largest size over 400 writes of 20 indexed documents, one a turn, with a thread checkpoint after each. */
    const peakWal = async (name: string, catchUpFrames: number): Promise<number> => {
      const path = join(dir, name);
      const checkpoints = (file: string, fallBack: () => void) => new WalCheckpoints(file, fallBack, { everyMs: 0, catchUpFrames });
      const store = new EmbeddedDocumentStore(path, { ...embeddedUpkeep, checkpoints });
      let peak = 0;
      try {
        const collection = store.collection("segments");
        await collection.createTextIndex({ scope: "owner", field: "words" });
        for (let b = 0; b < 400; b++) {
          const doc = (i: number) => ({ _id: `${b}:${i}`, owner: 1, words: `${words} w${b}x${i} `.repeat(4) });
          await collection.insertMany(Array.from({ length: 20 }, (_, i) => doc(i)));
          await Bun.sleep(0);
          peak = Math.max(peak, existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
        }
        await store.maintenanceSettled();
        expect(await collection.countDocuments({})).toBe(8000);
      } finally {
        await store.close();
      }
      return peak;
    };
    // 500 frames are 2 MB of 4 KiB pages; what comes between two checkpoints rides on top.
    const bound = 16_000_000;
    expect(await peakWal("bounded.sqlite", 500)).toBeLessThan(bound);
    // Without the catch-up, the thread's checkpoints alone seldom let it start over: 78 MB on a quiet machine (1.1 GB
    // for a large transcript), 36.5 MB once beside a busy CI run, where a slow event loop left the thread time to
    // finish between writes. What matters is that it passes the bound the catch-up keeps.
    expect(await peakWal("unbounded.sqlite", Number.POSITIVE_INFINITY)).toBeGreaterThan(bound);
  });

  test("when the thread cannot checkpoint, the connection is told to checkpoint by itself again, once", async () => {
    let fellBack = 0;
    const checkpoints = new WalCheckpoints(join(dir, "missing", "readmodels.sqlite"), () => fellBack++, { everyMs: 0, catchUpFrames: 16_384 });
    checkpoints.written();
    await checkpoints.settled();
    checkpoints.written();
    await checkpoints.settled();
    expect(fellBack).toBe(1);
    await checkpoints.close();
  });

  test("a store opened without the service's upkeep (a tool) leaves checkpoints to SQLite and still merges, a step a turn", async () => {
    const path = join(dir, "tool.sqlite");
    const store = new EmbeddedDocumentStore(path);
    try {
      const connection = (store as unknown as { db: Database }).db;
      expect(connection.query("PRAGMA wal_autocheckpoint").get()).toEqual({ wal_autocheckpoint: 1000 });
      await store.collection("segments").createTextIndex({ scope: "owner", field: "words" });
      await writeBatches(store, 60);
      await store.maintenanceSettled();
    } finally {
      await store.close();
    }
    expect(leftToMerge(path)).toBe(false);
  });

  test("a store in memory has no WAL and no checkpoints", async () => {
    const store = new EmbeddedDocumentStore(":memory:", embeddedUpkeep);
    try {
      await store.collection("plain").insertOne({ _id: "1" });
      await store.maintenanceSettled();
      expect((store as unknown as { checkpoints: unknown }).checkpoints).toBeNull();
    } finally {
      await store.close();
    }
  });
});
