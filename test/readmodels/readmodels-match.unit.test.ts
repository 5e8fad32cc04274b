/**
 * The JS matcher, the SQL translation and the update helpers of the embedded read-model store. The
 * differential test is the important one: reads go through SQL and updates through the matcher, so the
 * two must agree on every document, including the type mix-ups SQLite invites.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { Document, Filter } from "../../src/readmodels/port.ts";
import { parseFilter } from "../../src/readmodels/filter.ts";
import { compareStrings, compileFilter } from "../../src/readmodels/match.ts";
import { translate } from "../../src/readmodels/embedded-sql.ts";
import { translateFilter } from "../../src/readmodels/embedded-sql-shapes.ts";
import { applyUpdate, parseUpdate, seedFromFilter } from "../../src/readmodels/update.ts";

const values: unknown[] = [undefined, null, 0, 1, 1.5, -2, "", "1", "a", "ab", "B", "é", "😀", "[]", true, false, [], ["a", 1, true, null], { x: 1 }];
const docs: Document[] = values.flatMap((f, i) => [
  f === undefined ? { _id: `f${i}` } : { _id: `f${i}`, f },
  f === undefined ? { _id: `g${i}`, g: {} } : { _id: `g${i}`, g: { h: f } },
]);
const operands = [
  null,
  0,
  1,
  1.5,
  -2,
  2,
  -1.5,
  1e300,
  0.5,
  "",
  "0",
  "1",
  "1.5",
  "true",
  "null",
  "false",
  "e",
  "É",
  "a",
  "ab",
  "A",
  "b",
  "B",
  "é",
  "😀",
  "[]",
  "{",
  "a%",
  "_",
  "\\",
  true,
  false,
];

function filters(): Filter[] {
  const out: Filter[] = [];
  for (const path of ["f", "g.h"]) {
    for (const x of operands) {
      out.push({ [path]: x }, { [path]: { $lt: x } }, { [path]: { $lte: x } });
      if (typeof x === "string") out.push({ [path]: { $contains: x } });
    }
    for (const list of [[], [1, "a"], [null, true], ["1", 1.5, false], ["[]", "é"], [0, false], ["A", "a", "😀"], [null]]) out.push({ [path]: { $in: list } });
    for (const text of ["%", "_", "\\", "a", "[", "😀", "a%", "B"]) out.push({ [path]: { $contains: text } });
    // Two conditions on one field: both must hold.
    for (const [low, high] of [
      [0, 1.5],
      ["a", "b"],
      [null, 1],
      [false, true],
    ] as const)
      out.push({ [path]: { $lt: high, $lte: low } }, { [path]: { $in: [low, high], $lte: high } });
  }
  out.push({ f: 1, "g.h": "a" }, { f: { $lte: 1 }, "g.h": { $in: [null, "a"] } }, { f: { $contains: "a" }, "g.h": null });
  return out;
}

describe("JS matcher and SQL translation agree", () => {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (id TEXT PRIMARY KEY, doc TEXT NOT NULL)");
  const insert = db.prepare("INSERT INTO t (id, doc) VALUES (?, ?)");
  for (const doc of docs) insert.run(doc._id, JSON.stringify(doc));

  for (const filter of filters()) {
    test(JSON.stringify(filter), () => {
      const t = translate(parseFilter(filter));
      const fromSql = (db.prepare(`SELECT id FROM t WHERE ${t.where}`).all(...t.params) as { id: string }[]).map((r) => r.id).sort();
      const match = compileFilter(filter);
      const fromJs = docs
        .filter(match)
        .map((d) => d._id)
        .sort();
      expect(fromSql).toEqual(fromJs);
      // The cached translation of the filter's shape binds the same values as a fresh one.
      const cached = translateFilter(filter);
      expect((db.prepare(`SELECT id FROM t WHERE ${cached.where}`).all(...cached.params) as { id: string }[]).map((r) => r.id).sort()).toEqual(fromJs);
    });
  }
});

describe("matcher semantics", () => {
  const m = (filter: Filter, doc: Document) => compileFilter(filter)(doc);

  test("MongoDB's rules for null, missing and type bracketing", () => {
    expect(m({ a: null }, { _id: "1" })).toBe(true);
    expect(m({ a: { $in: [null] } }, { _id: "1" })).toBe(true);
    expect(m({ a: 1 }, { _id: "1", a: true })).toBe(false);
    expect(m({ a: { $lt: 3 } }, { _id: "1", a: "2" })).toBe(false);
    expect(m({ a: { $lte: null } }, { _id: "1" })).toBe(true);
    expect(m({ a: { $contains: "1" } }, { _id: "1", a: 1 })).toBe(false);
    expect(m({ "a.0": "x" }, { _id: "1", a: ["x"] })).toBe(true);
  });

  test("strings compare by code point, not UTF-16 unit", () => {
    expect(compareStrings("😀", "\uff21")).toBeGreaterThan(0);
    expect(compareStrings("a", "ab")).toBeLessThan(0);
    expect(compareStrings("é", "é")).toBe(0);
  });

  test("unsupported filters are rejected, not guessed at", () => {
    for (const filter of [
      { a: { b: 1 } },
      { a: [1] },
      { $nor: [{ a: 1 }] },
      { a: { $size: 1 } },
      { "a-b": 1 },
      { "a.'x": 1 },
      { a: { $in: "x" } },
      { a: { $elemMatch: { b: 1 } } },
      { $or: [{ a: 1 }] },
      { $and: [{ a: 1 }] },
      { a: { $ne: 1 } },
      { a: { $gt: 1 } },
      { a: { $gte: 1 } },
      { a: { $nin: [1] } },
      { a: { $exists: true } },
      { a: { $regex: "x" } },
      { a: { $contains: 1 } },
    ]) {
      expect(() => parseFilter(filter as unknown as Filter)).toThrow(TypeError);
    }
  });
});

describe("updates", () => {
  test("$set creates parents, $unset removes, $inc adds or starts", () => {
    const doc: Record<string, unknown> = { _id: "1", a: { b: 1 }, list: [1, 2], n: 1 };
    applyUpdate(doc, parseUpdate({ $set: { "a.c.d": true, "list.3": 9 }, $unset: { "a.b": "", "list.0": 1 }, $inc: { n: 2, m: -1 } }));
    expect(doc).toEqual({ _id: "1", a: { c: { d: true } }, list: [null, 2, null, 9], n: 3, m: -1 });
  });

  test("conflicting, _id and malformed updates are rejected", () => {
    for (const update of [
      { $set: { a: 1 }, $unset: { a: "" } },
      { $set: { a: 1, "a.b": 2 } },
      { $set: { _id: "x" } },
      {},
      { $push: { a: 1 } },
      { $inc: { a: "1" } },
    ]) {
      expect(() => parseUpdate(update as never)).toThrow(TypeError);
    }
    expect(() => applyUpdate({ _id: "1", a: 1 }, parseUpdate({ $set: { "a.b": 1 } }))).toThrow(TypeError);
    expect(() => applyUpdate({ _id: "1", a: "x" }, parseUpdate({ $inc: { a: 1 } }))).toThrow(TypeError);
  });

  test("an upsert is seeded from equalities only", () => {
    const seed = seedFromFilter(parseFilter({ _id: "1", "a.b": 2, c: null, d: { $lt: 1 }, e: { $in: ["x"] }, f: { $contains: "y" } }));
    expect(seed).toEqual({ _id: "1", a: { b: 2 }, c: null });
  });
});
