/**
 * JsonShapeScanner (src/http/json-shape.ts) against what JSON.parse finds in the same text: given any JSON value, its
 * text split anywhere, when the limits are the text's own maxima the scan passes, and when one is a step lower it names
 * that rule. Strings full of brackets, commas, quotes and backslashes are skipped, however the pieces cut them.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { JsonShapeScanner, type JsonShapeLimits } from "../../src/http/json-shape.ts";

type Maxima = { depth: number; arrayItems: number; objectMembers: number; names: Set<string> };

function maximaOf(value: unknown, level = 0, found: Maxima = { depth: 0, arrayItems: 0, objectMembers: 0, names: new Set() }): Maxima {
  if (value === null || typeof value !== "object") return found;
  found.depth = Math.max(found.depth, level + 1);
  if (Array.isArray(value)) {
    found.arrayItems = Math.max(found.arrayItems, value.length);
    for (const item of value) maximaOf(item, level + 1, found);
  } else {
    const keys = Object.keys(value);
    found.objectMembers = Math.max(found.objectMembers, keys.length);
    // As written in the text: JSON.stringify writes each name the one way.
    for (const key of keys) found.names.add(JSON.stringify(key).slice(1, -1));
    for (const key of keys) maximaOf((value as Record<string, unknown>)[key], level + 1, found);
  }
  return found;
}

/** The scan's answer for `text` fed in pieces cut at `cuts`. */
function scan(text: string, cuts: number[], limits: JsonShapeLimits): string | null {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const scanner = new JsonShapeScanner(limits);
  let from = 0;
  for (const to of [...points, text.length]) {
    const violation = scanner.feed(text.slice(from, to));
    if (violation) return violation.rule;
    from = to;
  }
  return null;
}

// Strings made of what the scan must look past.
const tricky = fc.string({ unit: fc.constantFrom("{", "}", "[", "]", ",", '"', "\\", ":", "a", "é", "\u2028") });
const json = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, tricky, fc.integer(), fc.constant(null), tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 6 }),
  object: fc.dictionary(tricky, tie("value"), { maxKeys: 6 }),
})).value;

describe("the JSON shape scan, given any JSON text cut anywhere", () => {
  test("passes at the text's own maxima, and names the rule a step below each", () => {
    fc.assert(
      fc.property(json, fc.array(fc.nat(), { maxLength: 8 }), (value, cuts) => {
        const text = JSON.stringify(value);
        const most = maximaOf(value);
        const limits: JsonShapeLimits = {
          depth: most.depth,
          arrayItems: Math.max(most.arrayItems, 1),
          objectMembers: Math.max(most.objectMembers, 1),
          memberNames: most.names.size,
          values: 1_000_000,
        };
        expect(scan(text, cuts, limits)).toBeNull();
        if (most.depth > 0) expect(scan(text, cuts, { ...limits, depth: most.depth - 1 })).toBe("depth");
        if (most.arrayItems > 1) expect(scan(text, cuts, { ...limits, arrayItems: most.arrayItems - 1 })).toBe("arrayItems");
        if (most.objectMembers > 1) expect(scan(text, cuts, { ...limits, objectMembers: most.objectMembers - 1 })).toBe("objectMembers");
        if (most.names.size > 0) expect(scan(text, cuts, { ...limits, memberNames: most.names.size - 1 })).toBe("memberNames");
      }),
      { numRuns: 2_000 },
    );
  });
});
