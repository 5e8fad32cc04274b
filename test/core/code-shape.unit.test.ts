/**
 * The limits ARCHITECTURE.md sets on the code's shape, counted by scripts/code-shape.ts over src, projections and
 * workers: a unit a person can read at once, and events typed end to end (no `as unknown as` to get at them).
 */
import { describe, expect, test } from "bun:test";
import { measureCodeShape, shapeLimits } from "../../scripts/code-shape.ts";

describe("the code's shape", () => {
  const shape = measureCodeShape();

  test(`at most ${shapeLimits.filesOverLimit} source files over ${shapeLimits.fileLines} lines`, () => {
    expect(shape.longFiles.length).toBeLessThanOrEqual(shapeLimits.filesOverLimit);
  });

  test(`no function over ${shapeLimits.functionLines} lines`, () => {
    expect(shape.longFunctions.map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`)).toEqual([]);
  });

  test(`no line over ${shapeLimits.lineLength} characters`, () => {
    expect(shape.longLines.map((l) => `${l.file}:${l.line} (${l.length})`)).toEqual([]);
  });

  test("no `as unknown as` cast", () => {
    expect(shape.casts.map((c) => `${c.file}:${c.line}`)).toEqual([]);
  });
});
