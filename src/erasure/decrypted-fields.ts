import type { DataKeyStore } from "./data-keys.ts";

type Entry = { scope: string; value: { text: string } | { json: string } };

/**
 * Fields decrypted lately, by their stored (encrypted) text: the same event is read again and again (a replay folds the
 * log once per projection, workers and commands re-read a task's stream), and a Web Crypto call costs tens of
 * microseconds where a lookup costs one. Events never change, so a stored text always decrypts to the same value; the
 * caller checks first that the field's key still exists, so an erasure is never answered from here.
 *
 * Kept by scope too, so that an erased scope's plaintext does not stay in memory: `forget` drops a scope's entries
 * (the reader does so whenever it finds a scope's key gone, the task-erasure worker and the account erasure as they
 * destroy keys; see forgetDecryptedFields). Bounded by the stored texts' total length; the least recently used go
 * first. An object or array is kept as its JSON text and parsed on each hit, so no reader can change what another gets.
 */
export class DecryptedFields {
  private readonly entries = new Map<string, Entry>();
  private readonly byScope = new Map<string, Set<string>>();
  private size = 0;

  constructor(private readonly maxChars = 32 * 1024 * 1024) {}

  /** The value `stored` decrypted to; undefined when it is not here. */
  get(stored: string): unknown {
    const entry = this.entries.get(stored);
    if (entry === undefined) return undefined;
    this.entries.delete(stored);
    this.entries.set(stored, entry);
    return "text" in entry.value ? entry.value.text : JSON.parse(entry.value.json);
  }

  /** Keeps what `stored`, of `scope`, decrypted to (a field too large for the bound is not kept). */
  set(scope: string, stored: string, value: unknown): void {
    if (stored.length > this.maxChars / 16 || this.entries.has(stored)) return;
    this.entries.set(stored, { scope, value: typeof value === "string" ? { text: value } : { json: JSON.stringify(value) } });
    let held = this.byScope.get(scope);
    if (held === undefined) this.byScope.set(scope, (held = new Set()));
    held.add(stored);
    this.size += stored.length;
    for (const [oldest] of this.entries) {
      if (this.size <= this.maxChars) break;
      this.drop(oldest);
    }
  }

  /** Drops every field of `scope` (its key is gone). */
  forget(scope: string): void {
    for (const stored of this.byScope.get(scope) ?? []) this.drop(stored);
  }

  /** The scopes with fields here. */
  scopes(): string[] {
    return [...this.byScope.keys()];
  }

  /** How many fields are here. */
  count(): number {
    return this.entries.size;
  }

  private drop(stored: string): void {
    const entry = this.entries.get(stored);
    if (entry === undefined) return;
    this.entries.delete(stored);
    this.size -= stored.length;
    const held = this.byScope.get(entry.scope);
    held?.delete(stored);
    if (held?.size === 0) this.byScope.delete(entry.scope);
  }
}

/** One cache per key store: every reader of the log through the same keys shares it, and an eraser finds it by the keys. */
const caches = new WeakMap<object, DecryptedFields>();

/** The cache of fields decrypted with `keys`. */
export function decryptedFieldsOf(keys: object): DecryptedFields {
  let cache = caches.get(keys);
  if (cache === undefined) caches.set(keys, (cache = new DecryptedFields()));
  return cache;
}

/**
 * Drops from memory the plaintext of erased scopes decrypted with `keys`: those named, or (none named: after an
 * account's erasure, whose scopes the caller does not list) every scope whose key `keys` no longer has. Another
 * process's cache drops them when it next reads one of their fields, or as the least recently used.
 */
export async function forgetDecryptedFields(keys: Pick<DataKeyStore, "find">, scopes?: readonly string[]): Promise<void> {
  const cache = caches.get(keys);
  if (cache === undefined) return;
  if (scopes !== undefined) {
    for (const scope of scopes) cache.forget(scope);
    return;
  }
  for (const scope of cache.scopes()) {
    const key = await keys.find(scope);
    if (key === null || key === "erased") cache.forget(scope);
  }
}
