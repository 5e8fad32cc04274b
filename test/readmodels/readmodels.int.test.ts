/** The read-model contract on the embedded store, plus the index use the store exists to get right. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore, type EmbeddedCollection } from "../../src/readmodels/embedded.ts";
import { documentStoreContract } from "../contracts/readmodels.contract.ts";
import { tasksProjection } from "../../src/tasks/tasks-projection.ts";
import { usersProjection } from "../../src/accounts/users-projection.ts";

const dir = mkdtempSync(join(tmpdir(), "scribe-readmodels-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

documentStoreContract("embedded (SQLite file)", async () => {
  const store = new EmbeddedDocumentStore(join(dir, "contract.sqlite"));
  return { store, close: () => store.close() };
});

documentStoreContract("embedded (:memory:)", async () => {
  const store = new EmbeddedDocumentStore(":memory:");
  return { store, close: () => store.close() };
});

describe("embedded store: indexes", () => {
  const file = join(dir, "indexed.sqlite");
  const users = 10;
  const total = 100_000;
  let store: EmbeddedDocumentStore;
  let tasks: EmbeddedCollection;
  const query = { userId: "u1", status: "finished" };
  const page = { sort: { createdAt: -1 as const }, skip: 0, limit: 25 };

  beforeAll(async () => {
    store = new EmbeddedDocumentStore(file);
    tasks = store.collection("tasks");
    await tasks.createIndex({ userId: 1, createdAt: -1 });
    // Bulk-loaded through a second connection in one transaction: 100k separate inserts would only
    // measure fsync. The table layout (id, doc JSON) is the store's documented format.
    const raw = new Database(file);
    const insert = raw.prepare(`INSERT INTO tasks (id, doc) VALUES (?, ?)`);
    const statuses = ["finished", "finished", "finished", "failed", "processing"];
    raw.transaction(() => {
      for (let i = 0; i < total; i++) {
        const doc = {
          _id: `t${i}`,
          userId: `u${i % users}`,
          status: statuses[i % statuses.length],
          name: `Recording ${i}`,
          createdAt: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
        };
        insert.run(doc._id, JSON.stringify(doc));
      }
    })();
    raw.close();
  });

  afterAll(() => store.close());

  test("the userId + createdAt query walks the expression index, with no sort step", () => {
    const plan = tasks.explain(query, page).join("\n");
    expect(plan).toContain("USING INDEX ix2:tasks:userId_1_createdAt_-1");
    expect(plan).not.toContain("TEMP B-TREE");
  });

  test("a number that json_extract shares with a boolean (1) is still counted from the index alone", async () => {
    // 1 and true both extract as 1, so the condition also checks json_type; the index carries it too.
    const numbers = store.collection("numbered");
    await numbers.createIndex({ userId: 1 });
    for (const doc of [
      { _id: "a", userId: 1 },
      { _id: "b", userId: true },
      { _id: "c", userId: 1 },
      { _id: "d", userId: 2 },
    ])
      await numbers.insertOne(doc);
    expect(await numbers.countDocuments({ userId: 1 })).toBe(2);
    expect(await numbers.countDocuments({ userId: true })).toBe(1);
    const plan = (numbers as EmbeddedCollection).explain({ userId: 1 }).join("\n");
    // Both the value and its type are seeks into the index: no document is read to tell 1 from true.
    expect(plan).toContain("USING INDEX ix2:numbered:userId_1 (<expr>=? AND <expr>=?)");
  });

  // Speed is measured in bench/, not asserted here: this checks the indexed page is the right one.
  test("a page of 25 out of 100,000 documents (10,000 for the user) comes back sorted and filtered", async () => {
    const first = await tasks.find(query, page);
    expect(first).toHaveLength(25);
    expect(first.every((t) => t.userId === "u1" && t.status === "finished")).toBe(true);
    const createdAt = first.map((t) => t.createdAt as string);
    expect(createdAt).toEqual([...createdAt].sort().reverse());
    const later = await tasks.find(query, { ...page, skip: 25 });
    expect(later.map((t) => t._id)).not.toContain(first[0]!._id);
    expect(await tasks.countDocuments({ userId: "u1" })).toBe(total / users);
  });

  test("a second connection (a CLI replay) can write while this one holds the file", async () => {
    const other = new EmbeddedDocumentStore(file);
    await other.collection("tasks").insertOne({ _id: "from-cli", userId: "u1", status: "queued", createdAt: "2030-01-01T00:00:00.000Z" });
    await other.close();
    await new Promise<void>((resolve) => setImmediate(resolve)); // this connection's reads see it from the next turn
    expect((await tasks.find({ userId: "u1" }, { sort: { createdAt: -1 }, limit: 1 }))[0]?._id).toBe("from-cli");
  });
});

describe("embedded store: one read snapshot per turn of the event loop", () => {
  const file = join(dir, "snapshots.sqlite");
  const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

  test("this connection's writes are read back at once, within the same turn", async () => {
    const store = new EmbeddedDocumentStore(file);
    const c = store.collection("own");
    expect(await c.findOne({ _id: "a" })).toBeNull(); // opens the turn's snapshot
    await c.insertOne({ _id: "a", n: 1 });
    expect(await c.findOne({ _id: "a" })).toEqual({ _id: "a", n: 1 });
    await c.updateOne({ _id: "a" }, { $inc: { n: 1 } });
    expect(await c.find({})).toEqual([{ _id: "a", n: 2 }]);
    await store.close();
  });

  test("another connection's commit is seen from the next turn; reads within a turn stay consistent", async () => {
    const reader = new EmbeddedDocumentStore(file);
    const writer = new EmbeddedDocumentStore(file);
    await writer.collection("shared").insertOne({ _id: "x", n: 1 });
    await nextTurn();
    const shared = reader.collection("shared");
    expect(await shared.findOne({ _id: "x" })).toEqual({ _id: "x", n: 1 });
    await writer.collection("shared").updateOne({ _id: "x" }, { $set: { n: 2 } });
    expect(await shared.countDocuments({ n: 1 })).toBe(1); // the same snapshot as the read above
    await nextTurn();
    expect(await shared.findOne({ _id: "x" })).toEqual({ _id: "x", n: 2 });
    await Promise.all([reader.close(), writer.close()]);
  });

  test("the change stamp moves with another connection's commit from the next turn, with the snapshot", async () => {
    const reader = new EmbeddedDocumentStore(file);
    const writer = new EmbeddedDocumentStore(file);
    await writer.collection("stamped").insertOne({ _id: "s", n: 1 });
    await nextTurn();
    const stamp = reader.changeStamp(["stamped"]);
    await writer.collection("unrelated").insertOne({ _id: "u" }); // another connection: any commit counts
    expect(reader.changeStamp(["stamped"])).toBe(stamp); // the same snapshot, so still the same data
    await nextTurn();
    expect(reader.changeStamp(["stamped"])).not.toBe(stamp);
    await Promise.all([reader.close(), writer.close()]);
  });

  test("writing after another connection's commit, in a turn that already read, neither fails nor loses that commit", async () => {
    const one = new EmbeddedDocumentStore(file);
    const two = new EmbeddedDocumentStore(file);
    await one.collection("counters").findOne({ _id: "c" }); // opens one's snapshot
    await two.collection("counters").findOneAndUpdate({ _id: "c" }, { $inc: { n: 1 } }, { upsert: true });
    // Upgrading the outdated snapshot to a write would be SQLITE_BUSY at once; the write ends it first.
    expect(await one.collection("counters").findOneAndUpdate({ _id: "c" }, { $inc: { n: 1 } }, { upsert: true })).toEqual({ _id: "c", n: 2 });
    // So does a collection's first use, which creates its table.
    await two.collection("counters").findOneAndUpdate({ _id: "c" }, { $inc: { n: 1 } });
    await one.collection("fresh").insertOne({ _id: "f" });
    expect(await one.collection("counters").findOne({ _id: "c" })).toEqual({ _id: "c", n: 3 });
    await Promise.all([one.close(), two.close()]);
  });
});

describe("embedded store: the tasks projection's indexes", () => {
  test("a name search walks the user's newest-first index, which carries nameKey and replaced the one without it", async () => {
    const file = join(dir, "tasks-indexes.sqlite");
    const store = new EmbeddedDocumentStore(file);
    const tasks = store.collection("tasks");
    await tasks.createIndex({ userId: 1, id: -1 }); // as data directories made before nameKey joined it have
    await tasksProjection.setup!(store);
    const raw = new Database(file, { readonly: true });
    const indexes = (raw.query(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'tasks'`).all() as { name: string }[]).map((r) => r.name);
    raw.close();
    expect(indexes).toContain("ix2:tasks:userId_1_id_-1_nameKey_1");
    expect(indexes).not.toContain("ix2:tasks:userId_1_id_-1");
    // The same filter Tasks.list builds for `?search=`: matched from the index, so only the page's documents are read.
    const plan = tasks.explain({ userId: 7, nameKey: { $contains: "lecture" } }, { sort: { id: -1 }, limit: 25 }).join("\n");
    expect(plan).toContain("USING INDEX ix2:tasks:userId_1_id_-1_nameKey_1");
    expect(plan).not.toContain("TEMP B-TREE");
    await store.close();
  });

  test("the timed jobs' queries over every user's tasks and ledgers use an index, not a scan", async () => {
    const store = new EmbeddedDocumentStore(":memory:");
    await tasksProjection.setup!(store);
    await usersProjection.setup!(store);
    // failStuckTasks and requeueLostTasks (every minute), and the monthly allowance job (every few minutes).
    const tasks = store.collection("tasks") as EmbeddedCollection;
    expect(tasks.explain({ status: "scribing" }, { limit: 1000 }).join("\n")).toContain("USING INDEX ix2:tasks:status_1_updatedAt_1");
    // The pending and waiting ones last moved before a cutoff, oldest first: found by the index's ranges, only those
    // sorted (with a status index alone, a store whose tasks were all pending read every one of them every minute).
    const lost = tasks.explain({ status: { $in: ["pending", "waiting"] }, updatedAt: { $lt: "2026-11-27" } }, { sort: { updatedAt: 1 }, limit: 1000 });
    expect(lost.join("\n")).toContain("USING INDEX ix2:tasks:status_1_updatedAt_1 (<expr>=? AND <expr><?)");
    expect(lost.join("\n")).not.toContain("SCAN");
    expect(
      store
        .collection("users")
        .explain({ "ledger.period": { $lt: "2026-11" } }, { limit: 1000 })
        .join("\n"),
    ).toContain("USING INDEX ix2:users:ledger.period_1");
    await store.close();
  });
});
