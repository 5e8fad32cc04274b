/** Inserts, replaces, updates, deletes, indexes and clear: part of the read-model contract. */
import { describe, expect, test } from "bun:test";
import { DuplicateKeyError } from "../../src/readmodels/port.ts";
import { ids, type ContractContext } from "./readmodels-helpers.ts";

export function readModelWriteContract(context: ContractContext): void {
  const none = { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };

  describe("writes", () => {
    test("insertOne rejects a duplicate _id with DuplicateKeyError", async () => {
      const c = context.fresh();
      await c.insertOne({ _id: "1", n: 1 });
      await expect(c.insertOne({ _id: "1", n: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: "1" })).toEqual({ _id: "1", n: 1 });
      expect(await ids(c, { _id: 1 })).toEqual([]); // a number is not the string id
    });

    test("an upsert whose filter names an existing _id but does not match it is refused with DuplicateKeyError (fenced checkpoints rely on it)", async () => {
      const c = context.fresh();
      await c.insertOne({ _id: "cp", position: 5, epoch: 2 });
      await expect(c.replaceOne({ _id: "cp", epoch: { $lte: 1 } }, { _id: "cp", position: 9, epoch: 1 }, { upsert: true })).rejects.toBeInstanceOf(
        DuplicateKeyError,
      );
      await expect(c.findOneAndUpdate({ _id: "cp", epoch: { $lte: 1 } }, { $set: { epoch: 1 } }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: "cp" })).toEqual({ _id: "cp", position: 5, epoch: 2 });
      await c.replaceOne({ _id: "cp", epoch: { $lte: 3 } }, { _id: "cp", position: 9, epoch: 3 }, { upsert: true });
      expect(await c.findOneAndUpdate({ _id: "new", epoch: { $lte: 3 } }, { $set: { epoch: 3 } }, { upsert: true })).toEqual({ _id: "new", epoch: 3 });
      expect(await c.findOne({ _id: "cp" })).toEqual({ _id: "cp", position: 9, epoch: 3 });
    });

    test("a unique index rejects duplicates on insert, update, replace and upsert", async () => {
      const c = context.fresh();
      await c.createIndex({ email: 1 }, { unique: true });
      await c.createIndex({ email: 1 }, { unique: true }); // idempotent
      await c.createIndex({ userId: 1, name: 1 }, { unique: true });
      await c.insertOne({ _id: "u1", email: "a@x", userId: "u", name: "A" });
      await c.insertOne({ _id: "u2", email: "b@x", userId: "u", name: "B" });
      await c.insertOne({ _id: "u3", email: "c@x", userId: "v", name: "A" }); // same name, other user
      await expect(c.insertOne({ _id: "u4", email: "a@x" })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.updateOne({ _id: "u2" }, { $set: { email: "a@x" } })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.replaceOne({ _id: "u2" }, { _id: "u2", email: "c@x" })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.replaceOne({ _id: "u9" }, { _id: "u9", email: "c@x" }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.updateOne({ _id: "u9" }, { $set: { email: "b@x" } }, { upsert: true })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: "u2" })).toEqual({ _id: "u2", email: "b@x", userId: "u", name: "B" });
      expect(await c.countDocuments()).toBe(3);
      await c.updateOne({ _id: "u2" }, { $set: { email: "d@x" } });
      await c.insertOne({ _id: "u5", email: "b@x" });
      // Last, because MongoDB's updateMany is not atomic: which of u1/u2 changed before the failure is unspecified.
      await expect(c.updateMany({ userId: "u" }, { $set: { name: "same" } })).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    test("a unique index leaves out documents that lack one of its keys, on every adapter", async () => {
      const c = context.fresh();
      await c.createIndex({ token: 1 }, { unique: true });
      await c.createIndex({ userId: 1, slug: 1 }, { unique: true });
      await c.insertOne({ _id: "a" });
      await c.insertOne({ _id: "b" }); // neither has a token: no conflict (MongoDB indexes a missing field as null unless told)
      await c.insertOne({ _id: "c", userId: "u" });
      await c.insertOne({ _id: "d", userId: "u" }); // both lack slug
      await c.insertOne({ _id: "e", token: "t", userId: "u", slug: "s" });
      await expect(c.insertOne({ _id: "f", token: "t" })).rejects.toBeInstanceOf(DuplicateKeyError);
      await expect(c.insertOne({ _id: "g", userId: "u", slug: "s" })).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.countDocuments()).toBe(5);
    });

    test("replaceOne replaces, reports counts, and upserts", async () => {
      const c = context.fresh();
      await c.insertOne({ _id: "r1", a: 1, b: 2 });
      expect(await c.replaceOne({ _id: "r1" }, { _id: "r1", a: 5 })).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
      expect(await c.findOne({ _id: "r1" })).toEqual({ _id: "r1", a: 5 });
      expect(await c.replaceOne({ a: 5 }, { _id: "r1", a: 5 })).toEqual({ matchedCount: 1, modifiedCount: 0, upsertedCount: 0 });
      expect(await c.replaceOne({ _id: "r2" }, { _id: "r2", a: 6 })).toEqual(none);
      expect(await c.replaceOne({ _id: "r2" }, { _id: "r2", a: 6 }, { upsert: true })).toEqual({ ...none, upsertedCount: 1 });
      expect(await c.findOne({ _id: "r2" })).toEqual({ _id: "r2", a: 6 });
    });

    test("updateOne with upsert seeds the new document from the filter's equalities", async () => {
      const c = context.fresh();
      const result = await c.updateOne(
        { _id: "s1", userId: "x", "meta.kind": "k", n: { $lt: 3 } },
        { $set: { name: "n", "meta.size": 2 }, $inc: { count: 2 } },
        { upsert: true },
      );
      expect(result).toEqual({ ...none, upsertedCount: 1 });
      expect(await c.findOne({ _id: "s1" })).toEqual({ _id: "s1", userId: "x", meta: { kind: "k", size: 2 }, name: "n", count: 2 });

      expect(await c.updateOne({ userId: "y" }, { $set: { a: 1 } }, { upsert: true })).toEqual({ ...none, upsertedCount: 1 });
      const generated = await c.findOne({ userId: "y" });
      expect(typeof generated?._id).toBe("string");
      expect(generated).toEqual({ _id: generated!._id, userId: "y", a: 1 });

      expect(await c.updateOne({ userId: "y" }, { $set: { a: 2 } }, { upsert: true })).toEqual({ matchedCount: 1, modifiedCount: 1, upsertedCount: 0 });
      expect(await c.countDocuments({ userId: "y" })).toBe(1);
    });

    test("an upsert guarded by a revision fails with DuplicateKeyError once the revision is past", async () => {
      // The projection idempotency pattern: the document exists but the filter does not match it.
      const c = context.fresh();
      await c.insertOne({ _id: "g", revision: 5 });
      const stale = c.updateOne({ _id: "g", revision: { $lt: 3 } }, { $set: { revision: 3 } }, { upsert: true });
      await expect(stale).rejects.toBeInstanceOf(DuplicateKeyError);
      expect(await c.findOne({ _id: "g" })).toEqual({ _id: "g", revision: 5 });
    });

    test("$set, $unset and $inc on nested paths", async () => {
      const c = context.fresh();
      await c.insertOne({ _id: "n1", address: { city: "Paris", zip: "75001" }, stats: { views: 1 }, tags: ["a"] });
      expect(await c.updateOne({ _id: "n1" }, { $set: { "a.b.c": 1, "address.city": "Lyon" } })).toEqual({
        matchedCount: 1,
        modifiedCount: 1,
        upsertedCount: 0,
      });
      await c.updateOne({ _id: "n1" }, { $unset: { "address.zip": "", missing: 1, "nowhere.deep": true } });
      await c.updateOne({ _id: "n1" }, { $inc: { "stats.views": 2, "stats.likes": 1, total: -1.5 } });
      await c.updateOne({ _id: "n1" }, { $inc: { "stats.likes": 1 } });
      expect(await c.findOne({ _id: "n1" })).toEqual({
        _id: "n1",
        address: { city: "Lyon" },
        stats: { views: 3, likes: 2 },
        tags: ["a"],
        a: { b: { c: 1 } },
        total: -1.5,
      });
      expect(await c.updateOne({ _id: "n1" }, { $set: { "address.city": "Lyon" } })).toEqual({ matchedCount: 1, modifiedCount: 0, upsertedCount: 0 });
      expect(await c.updateOne({ _id: "zz" }, { $set: { x: 1 } })).toEqual(none);
      expect(await ids(c, { "stats.likes": 2, "address.city": "Lyon" })).toEqual(["n1"]);
    });

    test("updateMany reports matched and modified counts", async () => {
      const c = context.fresh();
      for (let n = 0; n < 10; n++) await c.insertOne({ _id: `m${n}`, n, even: n % 2 === 0 });
      expect(await c.updateMany({ even: true }, { $set: { flag: true } })).toEqual({ matchedCount: 5, modifiedCount: 5, upsertedCount: 0 });
      expect(await c.updateMany({ even: true }, { $set: { flag: true } })).toEqual({ matchedCount: 5, modifiedCount: 0, upsertedCount: 0 });
      expect(await c.updateMany({ n: { $in: [8, 9] } }, { $set: { flag: true } })).toEqual({ matchedCount: 2, modifiedCount: 1, upsertedCount: 0 });
      expect(await c.updateMany({ n: 99 }, { $inc: { n: 1 } })).toEqual(none);
      expect(await c.countDocuments({ flag: true })).toBe(6);
      expect(await c.updateMany({ n: { $lte: 2 } }, { $inc: { n: 100 } })).toEqual({ matchedCount: 3, modifiedCount: 3, upsertedCount: 0 });
      expect(await ids(c, { n: { $in: [100, 101, 102] } })).toEqual(["m0", "m1", "m2"]);
    });

    test("deleteOne and deleteMany report counts", async () => {
      const c = context.fresh();
      for (let n = 0; n < 10; n++) await c.insertOne({ _id: `d${n}`, n, even: n % 2 === 0 });
      expect(await c.deleteOne({ even: true })).toEqual({ deletedCount: 1 });
      expect(await c.countDocuments({ even: true })).toBe(4);
      expect(await c.deleteOne({ n: 42 })).toEqual({ deletedCount: 0 });
      expect(await c.deleteMany({ even: true })).toEqual({ deletedCount: 4 });
      expect(await c.deleteMany({ _id: { $in: ["d1", "d3"] } })).toEqual({ deletedCount: 2 });
      expect(await c.deleteOne({ n: { $lt: 10 }, _id: { $contains: "d" } })).toEqual({ deletedCount: 1 });
      expect(await c.countDocuments()).toBe(2);
      expect(await c.deleteMany({})).toEqual({ deletedCount: 2 });
    });

    test("clear removes every document and keeps the indexes", async () => {
      const c = context.fresh();
      await c.createIndex({ key: 1 }, { unique: true });
      await c.insertOne({ _id: "k1", key: "a" });
      await c.insertOne({ _id: "k2", key: "b" });
      await c.clear();
      expect(await c.countDocuments()).toBe(0);
      await c.insertOne({ _id: "k3", key: "a" });
      await expect(c.insertOne({ _id: "k4", key: "a" })).rejects.toBeInstanceOf(DuplicateKeyError);
    });

    test("dropIndex removes the index createIndex made; dropping one that is not there is no error", async () => {
      const c = context.fresh();
      await c.dropIndex({ key: 1 }); // a collection with no documents and no indexes yet
      await c.createIndex({ key: 1 }, { unique: true });
      await c.insertOne({ _id: "k1", key: "a" });
      await expect(c.insertOne({ _id: "k2", key: "a" })).rejects.toBeInstanceOf(DuplicateKeyError);
      await c.dropIndex({ key: 1 });
      await c.insertOne({ _id: "k2", key: "a" });
      await c.dropIndex({ key: 1 });
      expect(await ids(c, { key: "a" })).toEqual(["k1", "k2"]);
    });

    test("changeStamp is null (keep nothing), or moves with every write to a collection it names and with nothing else", async () => {
      const { name: watched, collection: c } = context.named();
      const { name: other, collection: o } = context.named();
      const store = context.store();
      const before = store.changeStamp([watched]);
      if (before === null) return; // a store that cannot tell: callers keep nothing, which is always right
      await c.insertOne({ _id: "1", n: 1 });
      const afterInsert = store.changeStamp([watched]);
      expect(afterInsert).not.toBe(before);
      await c.findOne({ _id: "1" });
      await c.find({ n: 1 });
      await o.insertOne({ _id: "x" });
      expect(store.changeStamp([watched])).toBe(afterInsert);
      const both = store.changeStamp([watched, other]);
      for (const write of [
        () => c.updateOne({ _id: "1" }, { $inc: { n: 1 } }),
        () => c.findOneAndUpdate({ _id: "1" }, { $inc: { n: 1 } }),
        () => c.replaceOne({ _id: "1" }, { _id: "1", n: 0 }),
        () => c.deleteMany({}),
        () => o.clear(),
      ]) {
        const stamp = store.changeStamp([watched, other]);
        await write();
        expect(store.changeStamp([watched, other])).not.toBe(stamp);
      }
      expect(store.changeStamp([watched, other])).not.toBe(both);
    });

    test("a non-unique compound index changes no results", async () => {
      const c = context.fresh();
      await c.createIndex({ userId: 1, createdAt: -1 });
      for (let i = 0; i < 20; i++) {
        await c.insertOne({
          _id: `t${i}`,
          userId: `u${i % 2}`,
          status: i % 3 === 0 ? "finished" : "queued",
          createdAt: `2024-01-${String(i + 1).padStart(2, "0")}`,
        });
      }
      const page = await ids(c, { userId: "u0", status: "finished" }, { sort: { createdAt: -1 }, skip: 1, limit: 2 });
      expect(page).toEqual(["t12", "t6"]);
    });

    test("findOneAndUpdate returns the document after the update, upserts, and counts atomically", async () => {
      const c = context.fresh();
      expect(await c.findOneAndUpdate({ _id: "n" }, { $inc: { count: 1 } })).toBeNull();
      expect(await c.findOneAndUpdate({ _id: "n" }, { $inc: { count: 1 }, $set: { at: 5 } }, { upsert: true })).toEqual({ _id: "n", count: 1, at: 5 });
      expect(await c.findOneAndUpdate({ _id: "n" }, { $inc: { count: 2 } })).toEqual({ _id: "n", count: 3, at: 5 });
      const counts = await Promise.all(Array.from({ length: 20 }, () => c.findOneAndUpdate({ _id: "p" }, { $inc: { count: 1 } }, { upsert: true })));
      expect(counts.map((d) => d!.count as number).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    });
  });
}
