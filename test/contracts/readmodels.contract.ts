/**
 * The read-model store contract (src/readmodels/port.ts): every adapter must pass it. Each test uses
 * its own collection with a random suffix, so the suite can run against a shared MongoDB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DuplicateKeyError, type Collection, type DocumentStore } from "../../src/readmodels/port.ts";
import type { ContractContext } from "./readmodels-helpers.ts";
import { readModelQueryContract } from "./readmodels-queries.contract.ts";
import { readModelWriteContract } from "./readmodels-writes.contract.ts";

export type OpenDocumentStore = () => Promise<{ store: DocumentStore; close: () => Promise<void> }>;

export function documentStoreContract(adapterName: string, open: OpenDocumentStore): void {
  describe(`DocumentStore contract: ${adapterName}`, () => {
    let store: DocumentStore | undefined;
    let close: () => Promise<void> = async () => {};
    const used: Collection[] = [];
    const run = Math.random().toString(36).slice(2, 10);
    let count = 0;

    beforeAll(async () => {
      ({ store, close } = await open());
    });

    afterAll(async () => {
      // Leaves nothing behind on a shared server but empty collections.
      for (const collection of used) await collection.clear();
      await close();
    });

    const opened = (): DocumentStore => {
      if (store === undefined) throw new Error("store not opened");
      return store;
    };
    const named = () => {
      const name = `contract_${run}_${++count}`;
      const collection = opened().collection(name);
      used.push(collection);
      return { name, collection };
    };
    const context: ContractContext = { fresh: () => named().collection, named, store: opened };

    readModelQueryContract(context);
    readModelWriteContract(context);

    test("documents come back as plain JSON with the string _id, and as copies", async () => {
      const c = context.fresh();
      const doc = { _id: "p1", name: "x", nested: { list: [1, "two", null, true], empty: {} }, n: 1.25 };
      await c.insertOne(doc);
      const found = await c.findOne({ _id: "p1" });
      expect(found).toEqual(doc);
      expect(typeof found?._id).toBe("string");
      expect(Object.getPrototypeOf(found)).toBe(Object.prototype);
      (found!.nested as { list: unknown[] }).list.push("mutated");
      expect(await c.findOne({ _id: "p1" })).toEqual(doc);
    });

    describe("replacing a collection (how a replay swaps a rebuilt read model in)", () => {
      test("the source's documents and indexes take the target's place, and the source is gone", async () => {
        const db = opened();
        const target = `swap_${run}_${++count}`;
        const source = `${target}__rebuild`;
        try {
          await db.collection(target).insertOne({ _id: "old", email: "a@example.com" });
          await db.collection(target).createIndex({ email: 1 }, { unique: true });
          await db.collection(source).createIndex({ email: 1 }, { unique: true });
          await db.collection(source).insertOne({ _id: "new", email: "b@example.com" });
          await db.replaceCollections([{ target, source }]);
          expect(await db.collection(target).find({})).toEqual([{ _id: "new", email: "b@example.com" }]);
          // The unique index came along, and asking for it again changes nothing.
          await db.collection(target).createIndex({ email: 1 }, { unique: true });
          await expect(db.collection(target).insertOne({ _id: "dup", email: "b@example.com" })).rejects.toBeInstanceOf(DuplicateKeyError);
          expect(await db.collection(source).countDocuments()).toBe(0);
        } finally {
          await db.dropCollection(target);
          await db.dropCollection(source);
        }
      });

      test("a source that never got a document (a read model with nothing in it yet) empties the target, with the other pairs swapped too", async () => {
        const db = opened();
        const [empty, full] = [`swap_${run}_${++count}`, `swap_${run}_${++count}`];
        try {
          await db.collection(empty).insertOne({ _id: "stale" });
          await db.collection(`${full}__rebuild`).insertOne({ _id: "rebuilt" });
          // `${empty}__rebuild` was never written to: on MongoDB it does not exist at all.
          await db.replaceCollections([
            { target: empty, source: `${empty}__rebuild` },
            { target: full, source: `${full}__rebuild` },
          ]);
          expect(await db.collection(empty).countDocuments()).toBe(0);
          expect(await db.collection(full).find({})).toEqual([{ _id: "rebuilt" }]);
        } finally {
          for (const name of [empty, full, `${empty}__rebuild`, `${full}__rebuild`]) await db.dropCollection(name);
        }
      });

      test("works when the target does not exist yet, and dropping twice is harmless", async () => {
        const db = opened();
        const target = `swap_${run}_${++count}`;
        try {
          await db.collection(`${target}__rebuild`).insertOne({ _id: "only" });
          await db.replaceCollections([{ target, source: `${target}__rebuild` }]);
          expect(await db.collection(target).countDocuments()).toBe(1);
        } finally {
          await db.dropCollection(target);
          await db.dropCollection(target);
        }
        expect(await db.collection(target).countDocuments()).toBe(0);
        await db.dropCollection(target);
      });
    });
  });
}
