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
      expect(await ids(c, { active: 0 })).toEqual(["e"]);
      expect(await ids(c, { score: 1.5 })).toEqual(["a"]);
      expect(await ids(c, { _id: "c" })).toEqual(["c"]);
      expect(await ids(c, { "address.city": "Paris" })).toEqual(["a"]);
      expect(await ids(c, { name: "Alice", age: 31 })).toEqual([]);
      expect(await ids(c, {})).toEqual(["a", "b", "c", "d", "e"]);
    });

    test("null matches null and missing", async () => {
      expect(await ids(c, { score: null })).toEqual(["b", "d", "e"]);
      expect(await ids(c, { nick: null })).toEqual(["a", "b", "c", "d", "e"]);
      expect(await ids(c, { age: null })).toEqual(["e"]);
      expect(await ids(c, { "address.zip": null })).toEqual(["b", "c", "d", "e"]);
    });

    test("$lt and $lte compare within one type only; strings by code point", async () => {
      expect(await ids(c, { age: { $lt: 30 } })).toEqual(["b"]);
      expect(await ids(c, { age: { $lte: 30 } })).toEqual(["a", "b"]);
      expect(await ids(c, { age: { $lt: 100 } })).toEqual(["a", "b", "d"]);
      expect(await ids(c, { name: { $lt: "C" } })).toEqual(["a"]);
      expect(await ids(c, { name: { $lte: "Carol" } })).toEqual(["a", "c"]);
      expect(await ids(c, { active: { $lt: true } })).toEqual(["b"]);
      expect(await ids(c, { score: { $lte: 0 } })).toEqual(["c"]);
      expect(await ids(c, { score: { $lte: null } })).toEqual(["b", "d", "e"]);
      expect(await ids(c, { score: { $lt: null } })).toEqual([]);
      expect(await ids(c, { age: { $lt: 40 }, active: true })).toEqual(["a"]);
    });

    test("$in", async () => {
      expect(await ids(c, { age: { $in: [25, "30"] } })).toEqual(["b", "c"]);
      expect(await ids(c, { active: { $in: [true, 0] } })).toEqual(["a", "d", "e"]);
      expect(await ids(c, { score: { $in: [null, 0] } })).toEqual(["b", "c", "d", "e"]);
      expect(await ids(c, { _id: { $in: ["a", "e", "zz"] } })).toEqual(["a", "e"]);
      expect(await ids(c, { age: { $in: [] } })).toEqual([]);
    });

    test("$contains: a plain substring of a string field, case-sensitive, every character literal", async () => {
      expect(await ids(c, { name: { $contains: "o" } })).toEqual(["b", "c"]);
      expect(await ids(c, { name: { $contains: "A" } })).toEqual(["a"]);
      expect(await ids(c, { name: { $contains: "_100%" } })).toEqual(["d"]);
      expect(await ids(c, { name: { $contains: "%" } })).toEqual(["d"]);
      expect(await ids(c, { name: { $contains: "_" } })).toEqual(["d"]);
      expect(await ids(c, { name: { $contains: "Év" } })).toEqual(["e"]);
      expect(await ids(c, { name: { $contains: "év" } })).toEqual([]);
      expect(await ids(c, { name: { $contains: "" } })).toEqual(["a", "b", "c", "d", "e"]);
      expect(await ids(c, { age: { $contains: "3" } })).toEqual(["c"]); // only strings contain text
      expect(await ids(c, { "address.city": { $contains: "aris" } })).toEqual(["a", "d"]);
      expect(await c.countDocuments({ name: { $contains: "o" }, age: 25 })).toBe(1);
    });

    test("$contains takes regular-expression and LIKE characters literally", async () => {
      const s = context.fresh();
      for (const [id, name] of [
        ["dot", "a.b"],
        ["star", "a*b"],
        ["caret", "^start"],
        ["slash", "back\\slash"],
        ["brackets", "[x](y){z}"],
        ["plain", "ab"],
      ]) {
        await s.insertOne({ _id: id!, name: name! });
      }
      expect(await ids(s, { name: { $contains: "." } })).toEqual(["dot"]);
      expect(await ids(s, { name: { $contains: "a*" } })).toEqual(["star"]);
      expect(await ids(s, { name: { $contains: "^" } })).toEqual(["caret"]);
      expect(await ids(s, { name: { $contains: "\\" } })).toEqual(["slash"]);
      expect(await ids(s, { name: { $contains: "](y){" } })).toEqual(["brackets"]);
      expect(await ids(s, { name: { $contains: "ab" } })).toEqual(["plain"]);
    });

    test("operators outside the port are refused on every adapter", async () => {
      for (const filter of [{ age: { $gt: 1 } }, { age: { $ne: 1 } }, { $or: [{ age: 1 }] }, { name: { $regex: "a" } }, { tags: { $elemMatch: { $eq: "x" } } }])
        await expect(c.find(filter as never)).rejects.toThrow(TypeError);
    });
  });

  describe("sort, skip, limit, count", () => {
    let c: Collection;
    const all = { n: { $lte: 1000 } };
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

    test("skip and limit count only matches of a $contains", async () => {
      const filter = { name: { $contains: "item-" }, n: { $lte: 5 } };
      expect(await ids(c, filter, { sort: { n: -1 }, skip: 1, limit: 2 })).toEqual(["i4", "i3"]);
      expect(await c.countDocuments(filter)).toBe(6);
      expect((await c.findOne({ name: { $contains: "-7" } }))?._id).toBe("i7");
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
      expect(await ids(s, { name: { $lte: "\uff21" } })).toEqual(["accent", "ascii", "fullwidth"]);
    });
  });
}
