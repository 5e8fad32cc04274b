/** StampedCache over the embedded store: what it keeps, for how long, and what it never keeps. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { StampedCache } from "../../src/readmodels/stamped-cache.ts";
import type { DocumentStore } from "../../src/readmodels/port.ts";

let store: EmbeddedDocumentStore;
beforeAll(() => {
  store = new EmbeddedDocumentStore(":memory:");
});
afterAll(() => store.close());

type Doc = { _id: string; n: number; tags: string[] };

/** A cache over collection `name`, and a reader that counts how often it really reads. */
function cached(name: string, maxEntries = 100) {
  const collection = store.collection<Doc>(name);
  const cache = new StampedCache<Doc>(store, [name], maxEntries);
  let reads = 0;
  const get = (id: string) =>
    cache.get(id, async () => {
      reads++;
      return collection.findOne({ _id: id });
    });
  return { collection, get, reads: () => reads };
}

describe("StampedCache", () => {
  test("keeps a value until its collection is written, then reads the new one", async () => {
    const { collection, get, reads } = cached("kept");
    await collection.insertOne({ _id: "a", n: 1, tags: [] });
    expect(await get("a")).toEqual({ _id: "a", n: 1, tags: [] });
    expect(await get("a")).toEqual({ _id: "a", n: 1, tags: [] });
    expect(reads()).toBe(1);
    await collection.updateOne({ _id: "a" }, { $set: { n: 2 } });
    expect(await get("a")).toMatchObject({ n: 2 });
    expect(reads()).toBe(2);
  });

  test("a write to another collection keeps the value; nothing found is never kept", async () => {
    const { collection, get, reads } = cached("scoped");
    await collection.insertOne({ _id: "a", n: 1, tags: [] });
    await get("a");
    await store.collection("elsewhere").insertOne({ _id: "x" });
    await get("a");
    expect(reads()).toBe(1);
    expect(await get("missing")).toBeNull();
    expect(await get("missing")).toBeNull();
    expect(reads()).toBe(3);
  });

  test("a value read while its collection changed is handed out but not kept", async () => {
    const collection = store.collection<Doc>("moving");
    await collection.insertOne({ _id: "a", n: 1, tags: [] });
    const cache = new StampedCache<Doc>(store, ["moving"], 100);
    let reads = 0;
    const read = async () => {
      reads++;
      const doc = await collection.findOne({ _id: "a" });
      if (reads === 1) await collection.updateOne({ _id: "a" }, { $set: { n: 2 } }); // a write lands mid-read
      return doc;
    };
    expect(await cache.get("a", read)).toMatchObject({ n: 1 });
    expect(await cache.get("a", read)).toMatchObject({ n: 2 });
    expect(reads).toBe(2);
  });

  test("kept values are frozen all the way down, so one caller cannot change another's", async () => {
    const { collection, get } = cached("frozen");
    await collection.insertOne({ _id: "a", n: 1, tags: ["x"] });
    const value = (await get("a"))!;
    expect(() => {
      (value as { n: number }).n = 5;
    }).toThrow(TypeError);
    expect(() => value.tags.push("y")).toThrow(TypeError);
    expect(await get("a")).toEqual({ _id: "a", n: 1, tags: ["x"] });
  });

  test("holds at most maxEntries, dropping the least recently used", async () => {
    const { collection, get, reads } = cached("bounded", 2);
    for (const id of ["a", "b", "c"]) await collection.insertOne({ _id: id, n: 0, tags: [] });
    await get("a");
    await get("b");
    await get("a"); // a is now the most recently used
    await get("c"); // drops b
    expect(reads()).toBe(3);
    await get("a");
    await get("c");
    expect(reads()).toBe(3);
    await get("b");
    expect(reads()).toBe(4);
  });

  test("on a store that cannot tell what changed (MongoDB's null stamp), every call reads", async () => {
    const blind: DocumentStore = {
      collection: (name) => store.collection(name),
      changeStamp: () => null,
      replaceCollections: (pairs) => store.replaceCollections(pairs),
      dropCollection: (n) => store.dropCollection(n),
      close: async () => {},
    };
    await store.collection<Doc>("blind").insertOne({ _id: "a", n: 1, tags: [] });
    const cache = new StampedCache<Doc>(blind, ["blind"], 100);
    let reads = 0;
    const read = async () => {
      reads++;
      return blind.collection<Doc>("blind").findOne({ _id: "a" });
    };
    await cache.get("a", read);
    await cache.get("a", read);
    expect(reads).toBe(2);
  });
});
