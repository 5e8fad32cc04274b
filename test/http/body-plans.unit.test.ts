import { describe, expect, test } from "bun:test";
import { t } from "elysia";
import { largestBodyOf, namesOf, planOf, prune, routePlans } from "../../src/http/body-plans.ts";
import { createTaskBody } from "../../src/tasks/schemas.ts";

describe("what of a large body its route's schema reads", () => {
  const plan = planOf(createTaskBody);

  test("members no schema names are dropped, at every level, and nothing else changes", () => {
    const body = {
      disk: "objstore",
      name: "Meeting",
      path: "a.mp3",
      size: 12,
      junk: { deep: [1, 2, 3] },
      segments: [{ start: 0, end: 900, text: "hello", speaker: null, tokens: ["hello"], extra: "x".repeat(10) }],
    };
    expect(prune(body, plan)).toEqual({
      disk: "objstore",
      name: "Meeting",
      path: "a.mp3",
      size: 12,
      segments: [{ start: 0, end: 900, text: "hello", speaker: null, tokens: ["hello"] }],
    });
    expect(body.junk).toEqual({ deep: [1, 2, 3] }); // the value given is left as it was
  });

  test("where only a scalar fits, an object or array is emptied: it is refused by type all the same", () => {
    const huge = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    expect(prune({ name: huge, size: [1, 2, 3], segments: { a: 1 } }, plan)).toEqual({ name: {}, size: [], segments: {} });
    // Elysia's coercing integers (a union of a numeric string and a number) and nullable values are scalars too.
    expect(prune({ segments: [{ start: { a: 1 }, speaker: [1], tokens: [{ b: 2 }, "w"] }] }, plan)).toEqual({
      segments: [{ start: {}, speaker: [], tokens: [{}, "w"] }],
    });
  });

  test("the result has no prototype for a key to reach, and built-in names are members like any other", () => {
    const pruned = prune({ name: "x", constructor: 1, toString: 2, hasOwnProperty: 3 }, plan) as object;
    expect(Object.getPrototypeOf(pruned)).toBeNull();
    expect(Object.keys(pruned)).toEqual(["name"]);
    expect(JSON.parse(JSON.stringify(pruned))).toEqual({ name: "x" });
  });

  test("records, objects that keep other members, and schemas it does not know are kept whole", () => {
    // `additionalProperties: false` (Elysia sets it on every route's body schema) drops them too, as Elysia's normalize does.
    expect(prune({ a: "x", b: 1 }, planOf(t.Object({ a: t.String() }, { additionalProperties: false })))).toEqual({ a: "x" });
    expect(prune({ a: "x", b: 1 }, planOf(t.Object({ a: t.String() }, { additionalProperties: true })))).toEqual({ a: "x", b: 1 });
    expect(prune({ a: 1, b: { c: 2 } }, planOf(t.Record(t.String(), t.Unknown())))).toEqual({ a: 1, b: { c: 2 } });
    expect(prune({ a: [{ b: 1 }] }, planOf(t.Object({ a: t.Any() })))).toEqual({ a: [{ b: 1 }] });
    expect(prune([1, { x: 1 }], planOf(t.Unknown()))).toEqual([1, { x: 1 }]);
  });

  test("a union keeps what any of its branches names", () => {
    const either = planOf(t.Union([t.Object({ a: t.String() }), t.Object({ b: t.Array(t.Object({ c: t.String() })) })]));
    expect(prune({ a: "x", b: [{ c: "y", d: 1 }], e: 2 }, either)).toEqual({ a: "x", b: [{ c: "y" }] });
    // A nullable array of objects: an array keeps its items' members, null stays null.
    const nullable = planOf(t.Object({ list: t.Nullable(t.Array(t.Object({ id: t.Integer() }))) }));
    expect(prune({ list: [{ id: 1, x: 2 }] }, nullable)).toEqual({ list: [{ id: 1 }] });
    expect(prune({ list: null }, nullable)).toEqual({ list: null });
  });

  test("the names a plan keeps, at every depth; none when it keeps members it does not name", () => {
    expect(namesOf(plan)).toEqual(
      new Set([
        "disk",
        "name",
        "path",
        "file",
        "size",
        "duration",
        "cost",
        "segments",
        "id",
        "start",
        "end",
        "text",
        "speaker",
        "tokens",
        "speaker_diarization",
        "engine",
        "language",
        "vocabulary",
      ]),
    );
    expect(namesOf(planOf(t.Object({ a: t.Record(t.String(), t.String()) })))).toBeNull();
    expect(namesOf(planOf(t.Object({ a: t.String() }, { additionalProperties: t.Number() })))).toBeNull();
    expect(namesOf(planOf(t.Object({ a: t.Array(t.Any()) })))).toBeNull();
  });

  test("a plan is plain data: it crosses to a thread as it is", () => {
    expect(structuredClone(plan)).toEqual(JSON.parse(JSON.stringify(plan)));
  });

  test("routes are found by method and path, a path without parameters first, as Elysia's router does", () => {
    const byId = t.Object({ name: t.String() });
    const bulk = t.Object({ ids: t.Array(t.Integer()) });
    const find = routePlans(() => [
      { method: "DELETE", path: "/api/tasks/:id", hooks: { body: byId } },
      { method: "DELETE", path: "/api/tasks/bulk", hooks: { body: bulk } },
      { method: "GET", path: "/api/tasks", hooks: {} },
    ]);
    expect(find("DELETE", "/api/tasks/bulk")).toEqual({
      plan: planOf(bulk),
      names: new Set(["ids"]),
      largestBody: null,
      largestFilelessBody: null,
      preparer: null,
    });
    expect(find("DELETE", "/api/tasks/12")?.plan).toEqual(planOf(byId));
    expect(find("POST", "/api/tasks/12")).toBeNull();
    expect(find("GET", "/api/tasks")).toBeNull(); // no body schema: the body is kept whole
    expect(find("DELETE", "/api/tasks/12/x")).toBeNull();
  });

  describe("the largest body a schema takes", () => {
    test("bounded strings, numbers and arrays add up, a character counted as 12 bytes (a form's %XX%XX%XX%XX)", () => {
      expect(largestBodyOf(t.String({ maxLength: 10 }))).toBe(12 * 12);
      expect(largestBodyOf(t.Integer())).toBe(12 * 32);
      expect(largestBodyOf(t.Array(t.Boolean(), { maxItems: 3 }))).toBe(12 + 3 * (12 * 32 + 12));
      expect(largestBodyOf(t.Object({ ab: t.String({ maxLength: 1 }) }))).toBe(2 * 12 + 12 * 5 + 12 * 3);
      expect(largestBodyOf(t.Union([t.String({ maxLength: 1 }), t.String({ maxLength: 5 })]))).toBe(12 * 7);
      expect(largestBodyOf(t.Optional(t.Literal("idp")))).toBe(12 * 5);
    });

    test("anything unbounded bounds nothing: a string or array with no maximum, a record, a file, an unknown schema", () => {
      for (const schema of [
        t.String(),
        t.Array(t.Integer()),
        t.Object({ a: t.String({ maxLength: 1 }), b: t.String() }),
        t.Record(t.String(), t.String({ maxLength: 1 })),
        t.Object({ a: t.String({ maxLength: 1 }) }, { additionalProperties: true }),
        t.File(),
        t.Any(),
        t.Union([t.String({ maxLength: 1 }), t.String()]),
      ])
        expect(largestBodyOf(schema)).toBeNull();
    });

    test("without files (JSON, a url-encoded form), a file takes what any value in its place takes", () => {
      const withAvatar = t.Object({ name: t.Optional(t.String({ maxLength: 10 })), avatar: t.Optional(t.File()) });
      expect(largestBodyOf(withAvatar)).toBeNull();
      expect(largestBodyOf(withAvatar, "fileless")).toBe(2 * 12 + (12 * 7 + 12 * 12) + (12 * 9 + 12 * 32));
      expect(largestBodyOf(t.Object({ name: t.String() }), "fileless")).toBeNull();
    });
  });
});
