/** The read-model contract on the embedded store, plus the index use the store exists to get right. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore, type EmbeddedCollection } from "../src/readmodels/embedded.ts";
import { documentStoreContract } from "./contracts/readmodels.contract.ts";

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
    for (const doc of [{ _id: "a", userId: 1 }, { _id: "b", userId: true }, { _id: "c", userId: 1 }, { _id: "d", userId: 2 }]) await numbers.insertOne(doc);
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
    expect((await tasks.find({ userId: "u1" }, { sort: { createdAt: -1 }, limit: 1 }))[0]?._id).toBe("from-cli");
  });
});
