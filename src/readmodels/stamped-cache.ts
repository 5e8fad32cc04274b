import type { DocumentStore } from "./port.ts";

/**
 * Values made from read models, kept while the store's change stamp for the collections they were read
 * from stays the same (DocumentStore.changeStamp). A value is kept only when the stamp did not move while
 * it was being read, so nothing older than the store is ever handed out; null (nothing found) is never
 * kept, so unknown keys cannot fill it. On a store that cannot tell (MongoDB) every call reads. Values come
 * out frozen on every store, since callers share them. At most `maxEntries`, the least recently used first.
 */
export class StampedCache<V extends object> {
  private readonly entries = new Map<string, { stamp: string; value: V }>();

  constructor(
    private readonly db: DocumentStore,
    private readonly collections: readonly string[],
    private readonly maxEntries: number,
  ) {}

  get(key: string, read: () => Promise<V>): Promise<V>;
  get(key: string, read: () => Promise<V | null>): Promise<V | null>;
  async get(key: string, read: () => Promise<V | null>): Promise<V | null> {
    const stamp = this.db.changeStamp(this.collections);
    const kept = this.entries.get(key);
    if (kept !== undefined) {
      this.entries.delete(key);
      if (kept.stamp === stamp) {
        this.entries.set(key, kept); // now the most recently used
        return kept.value;
      }
    }
    const value = await read();
    if (value === null) return null;
    deepFreeze(value);
    if (stamp !== null && this.db.changeStamp(this.collections) === stamp) {
      this.entries.set(key, { stamp, value });
      if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    }
    return value;
  }
}

function deepFreeze(value: object): void {
  if (Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const inner of Object.values(value)) if (typeof inner === "object" && inner !== null) deepFreeze(inner);
}
