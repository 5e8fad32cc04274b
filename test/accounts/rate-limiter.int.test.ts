import { afterEach, describe, expect, test } from "bun:test";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { RateLimiter } from "../../src/accounts/rate-limiter.ts";

// A fixed clock in the middle of a minute, so no window turns during a test.
const clock = () => Date.UTC(2026, 0, 1, 12, 0, 30);
const stores: EmbeddedDocumentStore[] = [];
const newStore = () => {
  const store = new EmbeddedDocumentStore(":memory:");
  stores.push(store);
  return store;
};
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

const counted = async (store: EmbeddedDocumentStore) => (await store.collection("rate_limits").find({})).map((d) => d.count as number);

describe("RateLimiter", () => {
  test("given a limit of 10, when 12 requests come, then exactly 10 are allowed with the remaining count going down to 0", async () => {
    const limiter = new RateLimiter(newStore(), 10, clock);
    const decisions = [];
    for (let i = 0; i < 12; i++) decisions.push(await limiter.hit("token"));
    expect(decisions.map((d) => d.allowed)).toEqual([...Array(10).fill(true), false, false]);
    expect(decisions.slice(0, 10).map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(decisions[10]!.retryAfterSeconds).toBe(30);
  });

  test("given two processes sharing the store and a limit of 1,000, when both send in parallel, then exactly 1,000 are allowed", async () => {
    const store = newStore();
    const first = new RateLimiter(store, 1000, clock);
    const second = new RateLimiter(store, 1000, clock);
    const decisions = await Promise.all(Array.from({ length: 1100 }, (_, i) => (i % 2 ? first : second).hit("token")));
    expect(decisions.filter((d) => d.allowed).length).toBe(1000);
  });

  test("given a huge limit, when 5,000 requests come, then the store is written a handful of times, not per request", async () => {
    const store = newStore();
    const limiter = new RateLimiter(store, 1_000_000, clock);
    for (let i = 0; i < 5000; i++) expect((await limiter.hit("token")).allowed).toBe(true);
    const [reserved] = await counted(store);
    // Reservations of a thousandth of what is left: 1,000, then 999, ... so 5,000 requests take about 5.
    expect(reserved).toBeGreaterThanOrEqual(5000);
    expect(reserved).toBeLessThan(6000);
    expect((await limiter.hit("token")).remaining).toBe(1_000_000 - 5001);
  });

  test("given two processes and a limit of 20,000, when both spend it, then never more than 20,000 are allowed and at most a few are refused early", async () => {
    const store = newStore();
    const limiters = [new RateLimiter(store, 20_000, clock), new RateLimiter(store, 20_000, clock)];
    let allowed = 0;
    for (let i = 0; i < 22_000; i++) if ((await limiters[i % 2]!.hit("token")).allowed) allowed++;
    expect(allowed).toBeLessThanOrEqual(20_000);
    expect(allowed).toBeGreaterThanOrEqual(20_000 - 20);
  });

  test("given a key that spent its window, then knownSpent says so without counting, and only until the window ends", async () => {
    let now = clock();
    const store = newStore();
    const limiter = new RateLimiter(store, 2, () => now);
    expect(limiter.knownSpent("token")).toBeNull();
    await limiter.hit("token");
    expect(limiter.knownSpent("token")).toBeNull();
    await limiter.hit("token");
    expect(limiter.knownSpent("token")).toBe(30);
    expect(limiter.knownSpent("token")).toBe(30);
    expect(await counted(store)).toEqual([2]);
    now += 60_000;
    expect(limiter.knownSpent("token")).toBeNull();
  });

  test("given keys of other windows, when a new minute starts, then it counts from zero again", async () => {
    let now = clock();
    const limiter = new RateLimiter(newStore(), 2, () => now);
    await limiter.hit("token");
    await limiter.hit("token");
    expect((await limiter.hit("token")).allowed).toBe(false);
    now += 60_000;
    expect((await limiter.hit("token")).allowed).toBe(true);
  });
});
