/** Filters, sort/skip/limit and counts: part of the read-model contract. */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Collection } from "../../src/readmodels/port.ts";
import { ids, type ContractContext } from "./readmodels-helpers.ts";

// Chosen so that every type confusion SQLite invites (1 vs true, "30" vs 30, null vs missing) shows.
const people = [
  { _id: "a", name: "Alice", age: 30, active: true, tags: ["x", "y"], address: { city: "Paris", zip: "75001" }, score: 1.5, nick: null },
  { _id: "b", name: "bob", age: 25, active: false, tags: ["y"], address: { city: "Berlin" } },
  { _id: "c", name: "Carol", age: "30", active: 1, tags: [true], score: 0 },
  { _id: "d", name: "Dan_100%", age: 40, active: true, tags: [1, "z"], address: { city: "paris" } },
  { _id: "e", name: "Éva", age: null, active: 0, tags: "x" },
];

export function readModelQueryContract(context: ContractContext): void {
  describe("filters", () => {
    let c: Collection;
    beforeAll(async () => {
      c = context.fresh();
      for (const person of people) await c.insertOne(person);
    });

    test("equality does not confuse strings, numbers and booleans", async () => {
      expect(await ids(c, { name: "bob" })).toEqual(["b"]);
      expect(await ids(c, { age: 30 })).toEqual(["a"]);
      expect(await ids(c, { age: "30" })).toEqual(["c"]);
      expect(await ids(c, { active: true })).toEqual(["a", "d"]);
      expect(await ids(c, { active: false })).toEqual(["b"]);
      expect(await ids(c, { active: 1 })).toEqual(["c"]);
      expect(await ids(c, { active: { $eq: 0 } })).toEqual(["e"]);
      expect(await ids(c, { score: 1.5 })).toEqual(["a"]);
      expect(await ids(c, { _id: "c" })).toEqual(["c"]);
      expect(await ids(c, { "address.city": "Paris" })).toEqual(["a"]);
      expect(await ids(c, { name: "Alice", age: 31 })).toEqual([]);
    });

    test("null matches null and missing; $ne matches missing", async () => {
      expect(await ids(c, { score: null })).toEqual(["b", "d", "e"]);
      expect(await ids(c, { nick: { $eq: null } })).toEqual(["a", "b", "c", "d", "e"]);
      expect(await ids(c, { age: null })).toEqual(["e"]);
      expect(await ids(c, { score: { $ne: null } })).toEqual(["a", "c"]);
      expect(await ids(c, { "address.city": { $ne: "Paris" } })).toEqual(["b", "c", "d", "e"]);
      expect(await ids(c, { age: { $ne: 30 } })).toEqual(["b", "c", "d", "e"]);
      expect(await ids(c, { active: { $ne: true } })).toEqual(["b", "c", "e"]);
    });

    test("$exists tells null from missing", async () => {
      expect(await ids(c, { score: { $exists: true } })).toEqual(["a", "c"]);
      expect(await ids(c, { score: { $exists: false } })).toEqual(["b", "d", "e"]);
      expect(await ids(c, { nick: { $exists: true } })).toEqual(["a"]);
      expect(await ids(c, { "address.zip": { $exists: true } })).toEqual(["a"]);
    });

    test("ranges compare within one type only", async () => {
      expect(await ids(c, { age: { $gt: 25 } })).toEqual(["a", "d"]);
      expect(await ids(c, { age: { $gte: 25, $lt: 40 } })).toEqual(["a", "b"]);
      expect(await ids(c, { age: { $lte: 30 } })).toEqual(["a", "b"]);
      expect(await ids(c, { age: { $lt: 100 } })).toEqual(["a", "b", "d"]);
      expect(await ids(c, { name: { $gte: "C" } })).toEqual(["b", "c", "d", "e"]);
      expect(await ids(c, { name: { $lt: "C" } })).toEqual(["a"]);
      expect(await ids(c, { active: { $gt: false } })).toEqual(["a", "d"]);
      expect(await ids(c, { score: { $gte: 0 } })).toEqual(["a", "c"]);
    });

    test("$in and $nin", async () => {
      expect(await ids(c, { age: { $in: [25, "30"] } })).toEqual(["b", "c"]);
      expect(await ids(c, { active: { $in: [true, 0] } })).toEqual(["a", "d", "e"]);
      expect(await ids(c, { score: { $in: [null, 0] } })).toEqual(["b", "c", "d", "e"]);
      expect(await ids(c, { _id: { $in: ["a", "e", "zz"] } })).toEqual(["a", "e"]);
      expect(await ids(c, { age: { $in: [] } })).toEqual([]);
      expect(await ids(c, { age: { $nin: [30, 25] } })).toEqual(["c", "d", "e"]);
      expect(await ids(c, { score: { $nin: [1.5] } })).toEqual(["b", "c", "d", "e"]);
      expect(await ids(c, { score: { $nin: [null] } })).toEqual(["a", "c"]);
    });

    test("$regex as a literal, anchored, case-insensitive, with LIKE's wildcards taken literally", async () => {
      expect(await ids(c, { name: { $regex: "o" } })).toEqual(["b", "c"]);
      expect(await ids(c, { name: { $regex: "A" } })).toEqual(["a"]);
      expect(await ids(c, { name: { $regex: "a", $options: "i" } })).toEqual(["a", "c", "d", "e"]);
      expect(await ids(c, { name: { $regex: "^b" } })).toEqual(["b"]);
      expect(await ids(c, { name: { $regex: "^B", $options: "i" } })).toEqual(["b"]);
      expect(await ids(c, { name: { $regex: "_100%" } })).toEqual(["d"]);
      expect(await ids(c, { name: { $regex: "n\\_1" } })).toEqual(["d"]);
      expect(await ids(c, { name: { $regex: "_", $options: "i" } })).toEqual(["d"]);
      expect(await ids(c, { name: { $regex: "0%", $options: "i" } })).toEqual(["d"]);
      expect(await ids(c, { age: { $regex: "3" } })).toEqual(["c"]); // only strings match a regex
    });

    test("$regex as a real regular expression, and non-ASCII case folding", async () => {
      expect(await ids(c, { name: { $regex: "^[a-c]", $options: "i" } })).toEqual(["a", "b", "c"]);
      expect(await ids(c, { name: { $regex: "l$" } })).toEqual(["c"]);
      expect(await ids(c, { name: { $regex: "ÉVA", $options: "i" } })).toEqual(["e"]);
      expect(await ids(c, { name: { $regex: "^(bob|carol)$", $options: "i" }, age: { $gte: 0 } })).toEqual(["b"]);
    });

    test("$elemMatch on array elements, not on scalars", async () => {
      expect(await ids(c, { tags: { $elemMatch: { $eq: "y" } } })).toEqual(["a", "b"]);
      expect(await ids(c, { tags: { $elemMatch: { $eq: "x" } } })).toEqual(["a"]);
      expect(await ids(c, { tags: { $elemMatch: { $in: ["x", 1] } } })).toEqual(["a", "d"]);
      expect(await ids(c, { tags: { $elemMatch: { $eq: 1 } } })).toEqual(["d"]);
      expect(await ids(c, { tags: { $elemMatch: { $eq: true } } })).toEqual(["c"]);
    });

    test("$and and $or, also around conditions only a regex engine can decide", async () => {
      expect(await ids(c, { $or: [{ name: "bob" }, { age: 40 }] })).toEqual(["b", "d"]);
      expect(await ids(c, { $and: [{ age: { $gte: 25 } }, { active: true }] })).toEqual(["a", "d"]);
      expect(await ids(c, { $or: [{ name: { $regex: "^[ab]", $options: "i" } }, { age: 40 }] })).toEqual(["a", "b", "d"]);
      expect(await ids(c, { active: true, $or: [{ age: 30 }, { "address.city": "paris" }] })).toEqual(["a", "d"]);
      expect(await c.countDocuments({ $or: [{ name: { $regex: "^[ab]", $options: "i" } }, { age: 40 }] })).toBe(3);
    });
  });

  describe("sort, skip, limit, count", () => {
    let c: Collection;
    const all = { n: { $exists: true } };
    beforeAll(async () => {
      c = context.fresh();
      for (const n of [3, 7, 0, 9, 5, 1, 8, 2, 6, 4]) {
        await c.insertOne({ _id: `i${n}`, n, even: n % 2 === 0, group: n < 5 ? "low" : "high", name: `item-${n}` });
      }
      await c.insertOne({ _id: "other", name: "other" }); // no n: sorts first ascending, last descending
    });

    test("ascending and descending with skip and limit", async () => {
      expect(await ids(c, all, { sort: { n: 1 } })).toEqual(["i0", "i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9"]);
      expect(await ids(c, all, { sort: { n: -1 }, skip: 2, limit: 3 })).toEqual(["i7", "i6", "i5"]);
      expect(await ids(c, all, { sort: { n: 1 }, skip: 2, limit: 3 })).toEqual(["i2", "i3", "i4"]);
      expect(await ids(c, { even: true }, { sort: { n: -1 }, limit: 2 })).toEqual(["i8", "i6"]);
      expect(await ids(c, all, { sort: { n: 1 }, skip: 8 })).toEqual(["i8", "i9"]);
      expect(await ids(c, all, { sort: { n: 1 }, skip: 20 })).toEqual([]);
      expect(await ids(c, all, { sort: { n: 1 }, limit: 0 })).toHaveLength(10);
    });

    test("several sort keys, and missing fields first when ascending", async () => {
      expect(await ids(c, all, { sort: { group: 1, n: -1 }, limit: 4 })).toEqual(["i9", "i8", "i7", "i6"]);
      expect(await ids(c, {}, { sort: { n: 1 }, limit: 2 })).toEqual(["other", "i0"]);
      expect(await ids(c, {}, { sort: { n: -1 }, skip: 9 })).toEqual(["i0", "other"]);
    });

    test("skip and limit count only matches when a regex is decided outside the index", async () => {
      const filter = { name: { $regex: "^item-[0-5]$" } };
      expect(await ids(c, filter, { sort: { n: -1 }, skip: 1, limit: 2 })).toEqual(["i4", "i3"]);
      expect(await c.countDocuments(filter)).toBe(6);
      expect((await c.findOne({ name: { $regex: "^item-[7]$" } }))?._id).toBe("i7");
    });

    test("countDocuments and findOne", async () => {
      expect(await c.countDocuments()).toBe(11);
      expect(await c.countDocuments({ even: true })).toBe(5);
      expect(await c.countDocuments({ group: "high", n: { $lt: 8 } })).toBe(3);
      expect(await c.findOne({ n: 42 })).toBeNull();
      expect((await c.findOne({ n: 3 }))?.name).toBe("item-3");
    });

    test("strings sort by code point, as UTF-8 bytes do", async () => {
      const s = context.fresh();
      for (const [id, name] of [
        ["emoji", "😀"],
        ["fullwidth", "\uff21"],
        ["ascii", "Z"],
        ["accent", "é"],
      ]) {
        await s.insertOne({ _id: id!, name: name! });
      }
      expect(await ids(s, {}, { sort: { name: 1 } })).toEqual(["ascii", "accent", "fullwidth", "emoji"]);
      expect(await ids(s, { name: { $gt: "\uff21" } })).toEqual(["emoji"]);
    });
  });
}
