import { describe, expect, test } from "bun:test";
import { PacedBatches } from "../../src/core/paced-batches.ts";

const bounds = { first: 50, least: 5, most: 50, budgetMs: 3 };

describe("paced batches", () => {
  test("given a fresh pacer, the first batch is the first size", () => {
    expect(new PacedBatches(bounds).next).toBe(50);
  });

  test("given a batch over its budget, the next is cut at once to what fits it", () => {
    const batches = new PacedBatches(bounds);
    batches.took(12, 50); // 0.24 ms an item: 12 fit in 3 ms
    expect(batches.next).toBe(12);
  });

  test("given batches far under budget, the size grows at most twofold a batch, up to the most", () => {
    const batches = new PacedBatches({ ...bounds, first: 5 });
    batches.took(0.1, 5);
    expect(batches.next).toBe(10);
    batches.took(0.1, 10);
    expect(batches.next).toBe(20);
    batches.took(0.1, 20);
    batches.took(0.1, 40);
    expect(batches.next).toBe(50);
  });

  test("given a batch that took very long, the size stays at the least; an empty batch or a zero time changes little", () => {
    const batches = new PacedBatches(bounds);
    batches.took(500, 50);
    expect(batches.next).toBe(5);
    batches.took(10, 0);
    expect(batches.next).toBe(5);
    batches.took(0, 5);
    expect(batches.next).toBe(10);
  });
});
