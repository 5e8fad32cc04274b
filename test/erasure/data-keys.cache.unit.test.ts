/** The CryptoKey cache under the key stores (src/erasure/data-key-cache.ts): shared loads, time to live, final erasures. */
import { expect, test } from "bun:test";
import { DataKeyCache } from "../../src/erasure/data-key-cache.ts";
import { importDataKey, newRawDataKey } from "../../src/erasure/field-cipher.ts";

const newKey = () => importDataKey(newRawDataKey());

test("loads of one scope at once share one load; its key is kept", async () => {
  const cache = new DataKeyCache(null);
  let loads = 0;
  const key = await newKey();
  const load = async () => {
    loads += 1;
    await Bun.sleep(5);
    return key;
  };
  const answers = await Promise.all([cache.load("task-1", load), cache.load("task-1", load), cache.load("task-1", load)]);
  expect(answers.every((answer) => answer === key)).toBe(true);
  expect(await cache.load("task-1", load)).toBe(key);
  expect(loads).toBe(1);
});

test("a live key is read again after its time to live; an erased scope stays erased", async () => {
  let now = 0;
  const cache = new DataKeyCache(1000, () => now);
  const key = await newKey();
  await cache.load("task-1", async () => key);
  cache.markErased("task-2");
  now = 999;
  expect(cache.get("task-1")).toBe(key);
  now = 1001;
  expect(cache.get("task-1")).toBeUndefined();
  expect(cache.get("task-2")).toBe("erased");
});

test("a load that ends after the scope was erased here answers erased, and is not kept", async () => {
  const cache = new DataKeyCache(null);
  const key = await newKey();
  const slow = cache.load("task-1", async () => {
    await Bun.sleep(10);
    return key;
  });
  cache.markErased("task-1");
  expect(await slow).toBe("erased");
  expect(cache.get("task-1")).toBe("erased");
});

test("forgetLive drops live keys, even one being loaded, and keeps erasures", async () => {
  const cache = new DataKeyCache(null);
  const key = await newKey();
  await cache.load("task-1", async () => key);
  cache.markErased("task-2");
  const slow = cache.load("task-3", async () => {
    await Bun.sleep(10);
    return key;
  });
  cache.forgetLive();
  expect(await slow).toBe(key);
  expect(cache.get("task-1")).toBeUndefined();
  expect(cache.get("task-3")).toBeUndefined();
  expect(cache.get("task-2")).toBe("erased");
});

test("no key (null) is not kept; beyond its size the oldest entries go first", async () => {
  const cache = new DataKeyCache(null, Date.now, 2);
  expect(await cache.load("task-1", async () => null)).toBeNull();
  expect(cache.get("task-1")).toBeUndefined();
  const key = await newKey();
  for (const scope of ["task-1", "task-2", "task-3"]) await cache.load(scope, async () => key);
  expect(cache.get("task-1")).toBeUndefined();
  expect(cache.get("task-3")).toBe(key);
});
