import type { DataKeyStore, Erasure, KeyScope } from "../../src/erasure/data-keys.ts";
import { importDataKey, newRawDataKey } from "../../src/erasure/field-cipher.ts";

/** A DataKeyStore in memory, for testing what is built on the port (the protected event store, the erasure worker). */
export class MemoryDataKeys implements DataKeyStore {
  readonly keys = new Map<KeyScope, { key: CryptoKey; accountId: number }>();
  readonly erased = new Map<KeyScope, Erasure>();
  /** How many keys were made: a scope's key is made once. */
  made = 0;

  async keyFor(scope: KeyScope, accountId: number): Promise<CryptoKey | null> {
    if (this.erased.has(scope)) return null;
    const held = this.keys.get(scope);
    if (held) return held.key;
    const key = await importDataKey(newRawDataKey());
    // Another call made it meanwhile: the first one made stays (a key store makes one per scope).
    const raced = this.keys.get(scope);
    if (raced) return raced.key;
    this.made++;
    this.keys.set(scope, { key, accountId });
    return key;
  }

  async find(scope: KeyScope): Promise<CryptoKey | "erased" | null> {
    if (this.erased.has(scope)) return "erased";
    return this.keys.get(scope)?.key ?? null;
  }

  async erase(scope: KeyScope, accountId?: number): Promise<void> {
    if (this.erased.has(scope)) return;
    const owner = this.keys.get(scope)?.accountId ?? accountId ?? 0;
    this.keys.delete(scope);
    this.erased.set(scope, { scope, accountId: owner, erasedAt: new Date().toISOString() });
  }

  async eraseAccount(accountId: number): Promise<number> {
    const owned = [...this.keys].filter(([, held]) => held.accountId === accountId).map(([scope]) => scope);
    for (const scope of owned) await this.erase(scope);
    return owned.length;
  }

  async erasures(): Promise<Erasure[]> {
    return [...this.erased.values()];
  }

  async close(): Promise<void> {}
}
