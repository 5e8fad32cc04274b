/**
 * The data-key store contract (src/erasure/data-keys.ts), which every adapter passes: the embedded SQLite file always
 * (test/erasure/data-keys.sqlite.int.test.ts), MongoDB when MONGODB_URL is set (data-keys.mongodb.e2e.test.ts).
 * `open` gives a new handle on one shared store each call, as another process would have; scopes are new per run, so
 * a shared MongoDB database's earlier runs change nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { DataKeyStore } from "../../src/erasure/data-keys.ts";
import { decryptField, encryptField, FieldDecryptionError } from "../../src/erasure/field-cipher.ts";

export type DataKeysContractOptions = {
  /** A new handle on the store under test. */
  open: () => Promise<DataKeyStore>;
  /** How long another handle may go on using a key erased elsewhere (its cache's time to live). */
  staleForMs: number;
};

const place = (scope: string) => ({ scope, eventType: "TaskCreated", path: "name" });

/** Whether `a` decrypts what `b` encrypted: the same key. */
async function sameKey(a: CryptoKey, b: CryptoKey, scope: string): Promise<boolean> {
  const stored = await encryptField("same?", b, place(scope));
  return decryptField(stored, a, place(scope)).then(
    (value) => value === "same?",
    (error: unknown) => {
      if (error instanceof FieldDecryptionError) return false;
      throw error;
    },
  );
}

export function dataKeysContract(adapterName: string, options: DataKeysContractOptions): void {
  describe(`data-key store contract: ${adapterName}`, () => {
    let store: DataKeyStore;
    let other: DataKeyStore;
    const run = crypto.randomUUID().slice(0, 8);
    let next = 0;
    const newScope = (kind = "task") => `${kind}-${run}_${++next}`;
    // Accounts of this run only, far from any other run's.
    const account = () => Math.floor(Math.random() * 2 ** 40) + 1;

    beforeAll(async () => {
      store = await options.open();
      other = await options.open();
    });
    afterAll(async () => {
      await store.close();
      await other.close();
    });

    test("keyFor makes a key once; later calls and other handles get that key", async () => {
      const scope = newScope();
      const owner = account();
      expect(await store.find(scope)).toBeNull();
      const key = await store.keyFor(scope, owner);
      if (!key) throw new Error("no key made");
      expect(await sameKey((await store.keyFor(scope, owner)) as CryptoKey, key, scope)).toBe(true);
      expect(await sameKey((await other.keyFor(scope, owner)) as CryptoKey, key, scope)).toBe(true);
      expect(await sameKey((await other.find(scope)) as CryptoKey, key, scope)).toBe(true);
      expect(await sameKey((await store.keyFor(newScope(), owner)) as CryptoKey, key, scope)).toBe(false);
    });

    test("concurrent keyFor of one new scope, from two handles: one key, never two", async () => {
      const scope = newScope();
      const owner = account();
      const keys = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? other : store).keyFor(scope, owner)));
      const first = keys[0] as CryptoKey;
      for (const key of keys) expect(await sameKey(key as CryptoKey, first, scope)).toBe(true);
    });

    test("erase destroys the key for good: erased, never made again, listed as an erasure", async () => {
      const scope = newScope();
      const owner = account();
      await store.keyFor(scope, owner);
      const before = Date.now();
      await store.erase(scope);
      expect(await store.find(scope)).toBe("erased");
      expect(await store.keyFor(scope, owner)).toBeNull();
      await store.erase(scope);
      const erasure = (await store.erasures()).find((e) => e.scope === scope);
      expect(erasure?.accountId).toBe(owner);
      expect(Date.parse(erasure?.erasedAt ?? "")).toBeGreaterThanOrEqual(before - 1000);
    });

    test("another handle stops using an erased key within its cache's time to live", async () => {
      const scope = newScope();
      const owner = account();
      expect(await other.keyFor(scope, owner)).not.toBeNull();
      await store.erase(scope);
      if (options.staleForMs > 0) await Bun.sleep(options.staleForMs + 20);
      expect(await other.find(scope)).toBe("erased");
      expect(await other.keyFor(scope, owner)).toBeNull();
    });

    test("a scope erased before it had a key gets a tombstone: no key is made for it later", async () => {
      const scope = newScope();
      const owner = account();
      await store.erase(scope, owner);
      expect(await store.find(scope)).toBe("erased");
      expect(await other.keyFor(scope, owner)).toBeNull();
      expect((await store.erasures()).find((e) => e.scope === scope)?.accountId).toBe(owner);
    });

    test("eraseAccount destroys the account's keys, tasks' and its own, and no other account's", async () => {
      const owner = account();
      const neighbour = account();
      const owned = [newScope(), newScope(), newScope("account")];
      for (const scope of owned) await store.keyFor(scope, owner);
      const kept = newScope();
      const keptKey = await store.keyFor(kept, neighbour);
      expect(await other.eraseAccount(owner)).toBe(3);
      for (const scope of owned) {
        expect(await other.find(scope)).toBe("erased");
        expect(await other.keyFor(scope, owner)).toBeNull();
      }
      expect(await sameKey((await store.find(kept)) as CryptoKey, keptKey as CryptoKey, kept)).toBe(true);
      expect(await store.eraseAccount(owner)).toBe(0);
      const listed = new Set((await store.erasures()).map((e) => e.scope));
      for (const scope of owned) expect(listed.has(scope)).toBe(true);
      expect(listed.has(kept)).toBe(false);
    });

    test("an erased account never gets a key again: a new scope it owns is born erased, another account's is not", async () => {
      const owner = account();
      const neighbour = account();
      await store.keyFor(`account-${owner}`, owner);
      await store.keyFor(newScope(), owner);
      await store.eraseAccount(owner);
      const late = newScope();
      expect(await other.keyFor(late, owner)).toBeNull();
      expect(await store.keyFor(late, owner)).toBeNull();
      expect(await store.find(late)).toBe("erased");
      expect((await store.erasures()).find((e) => e.scope === late)?.accountId).toBe(owner);
      expect(await store.keyFor(newScope(), neighbour)).not.toBeNull();
    });

    test("a scope outside task-<id> / account-<id>'s characters, or a bad owner, is refused", async () => {
      for (const scope of ["", "task:1", "task|1", "a b", "x".repeat(201)]) {
        await expect(store.keyFor(scope, 1)).rejects.toThrow(TypeError);
        await expect(store.erase(scope)).rejects.toThrow(TypeError);
      }
      await expect(store.keyFor(newScope(), -1)).rejects.toThrow(TypeError);
      await expect(store.keyFor(newScope(), 1.5)).rejects.toThrow(TypeError);
    });
  });
}
