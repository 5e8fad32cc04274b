/**
 * The JS matcher, the SQL translation and the update helpers of the embedded read-model store. The
 * differential test is the important one: the store falls back from SQL to the matcher for some
 * conditions, so the two must agree on every document, including the type mix-ups SQLite invites.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { Document, Filter } from "../../src/readmodels/port.ts";
import { parseFilter } from "../../src/readmodels/filter.ts";
import { compareStrings, compileFilter } from "../../src/readmodels/match.ts";
import { regexLiteral, translate } from "../../src/readmodels/embedded-sql.ts";
import { applyUpdate, parseUpdate, seedFromFilter } from "../../src/readmodels/update.ts";

const values: unknown[] = [undefined, null, 0, 1, 1.5, -2, "", "1", "a", "ab", "B", "é", "😀", "[]", true, false, [], ["a", 1, true, null], { x: 1 }];
const docs: Document[] = values.flatMap((f, i) => [
  f === undefined ? { _id: `f${i}` } : { _id: `f${i}`, f },
  f === undefined ? { _id: `g${i}`, g: {} } : { _id: `g${i}`, g: { h: f } },
]);
const operands = [null, 0, 1, 1.5, -2, "", "1", "a", "B", "é", "[]", true, false];

function filters(): Filter[] {
  const out: Filter[] = [];
  for (const path of ["f", "g.h"]) {
    for (const x of operands) {
      out.push({ [path]: x });
      for (const op of ["$eq", "$ne", "$gt", "$gte", "$lt", "$lte"]) out.push({ [path]: { [op]: x } });
      out.push({ [path]: { $elemMatch: { $eq: x } } });
    }
    for (const list of [[], [1, "a"], [null, true], ["1", 1.5, false], ["[]", "é"]]) {
      out.push({ [path]: { $in: list } }, { [path]: { $nin: list } }, { [path]: { $elemMatch: { $in: list } } });
    }
    out.push({ [path]: { $exists: true } }, { [path]: { $exists: false } }, { [path]: { $gt: 0, $lte: 1 } });
    for (const [pattern, flags] of [
      ["a", ""],
      ["^a", ""],
      ["A", "i"],
      ["[ab]", ""],
      ["É", "i"],
      ["1", ""],
      ["^$", ""],
      ["\\[", ""],
      ["%", "i"],
    ]) {
      out.push({ [path]: { $regex: pattern, $options: flags } });
    }
  }
  out.push({ $or: [{ f: 1 }, { "g.h": "a" }] }, { $and: [{ f: { $ne: null } }, { f: { $ne: 1 } }] });
  out.push({ $or: [{ f: { $regex: "^[a-z]+$" } }, { "g.h": { $gte: 1 } }] });
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
      if (t.exact) expect(fromSql).toEqual(fromJs);
      else expect(fromSql).toEqual(expect.arrayContaining(fromJs)); // a superset, re-checked in JS
    });
  }
});

describe("matcher semantics", () => {
  const m = (filter: Filter, doc: Document) => compileFilter(filter)(doc);

  test("MongoDB's rules for null, missing, $ne and type bracketing", () => {
    expect(m({ a: null }, { _id: "1" })).toBe(true);
    expect(m({ a: { $ne: "x" } }, { _id: "1" })).toBe(true);
    expect(m({ a: { $nin: [null] } }, { _id: "1" })).toBe(false);
    expect(m({ a: 1 }, { _id: "1", a: true })).toBe(false);
    expect(m({ a: { $gt: 1 } }, { _id: "1", a: "2" })).toBe(false);
    expect(m({ a: { $gte: null } }, { _id: "1" })).toBe(true);
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
      { $or: [] },
    ]) {
      expect(() => parseFilter(filter as Filter)).toThrow(TypeError);
    }
  });

  test("regexLiteral recognises plain and escaped literals only", () => {
    expect(regexLiteral("abc")).toEqual({ text: "abc", anchored: false });
    expect(regexLiteral("^a\\.b\\%")).toEqual({ text: "a.b%", anchored: true });
    expect(regexLiteral("a.b")).toBeNull();
    expect(regexLiteral("a\\d")).toBeNull();
    expect(regexLiteral("a$")).toBeNull();
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
    const seed = seedFromFilter(parseFilter({ _id: "1", "a.b": 2, c: { $eq: null }, d: { $gt: 1 }, $and: [{ e: "x" }], $or: [{ f: 1 }] }));
    expect(seed).toEqual({ _id: "1", a: { b: 2 }, c: null, e: "x" });
  });
});
