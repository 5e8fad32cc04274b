/**
 * The read-model store contract (src/readmodels/port.ts): every adapter must pass it. Each test uses
 * its own collection with a random suffix, so the suite can run against a shared MongoDB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Collection, DocumentStore } from "../../src/readmodels/port.ts";
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
  });
}
