import { afterAll, expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { ExportLeases, leaseMs } from "../../src/data-export/export-leases.ts";

/** One data export at a time per account, on the embedded read-model store (MongoDB's takes the same filters). */

const store = new EmbeddedDocumentStore(":memory:");
afterAll(() => store.close());

test("one lease per account; released, it is free again; other accounts are not held up", async () => {
  const leases = new ExportLeases(store);
  const first = await leases.take(1);
  expect(first).not.toBeNull();
  expect(await leases.take(1)).toBeNull();
  const other = await leases.take(2);
  expect(other).not.toBeNull();
  await first!.release();
  await first!.release();
  const again = await leases.take(1);
  expect(again).not.toBeNull();
  await again!.release();
  await other!.release();
});

test("a lease its holder stopped renewing (its process died) is taken over once expired, by one taker only", async () => {
  let now = 1_000_000;
  const dead = new ExportLeases(store, () => now);
  const held = await dead.take(3);
  expect(held).not.toBeNull();
  const living = new ExportLeases(store, () => now);
  now += leaseMs - 1;
  expect(await living.take(3)).toBeNull();
  now += 2;
  const takers = await Promise.all([living.take(3), living.take(3), living.take(3)]);
  expect(takers.filter((lease) => lease !== null)).toHaveLength(1);
  // The dead holder's late release cannot free the lease it lost.
  await held!.release();
  expect(await living.take(3)).toBeNull();
  for (const lease of takers) await lease?.release();
});
