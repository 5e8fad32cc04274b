/**
 * The data-key store: one AES-256 key per scope, kept apart from the event log (crypto-shredding, ../shared/DESIGN.md
 * "Personal data in an immutable log"). Destroying a scope's key erases every copy of the fields it encrypted at
 * once, backups included; its record stays as a tombstone (scope, owner, time) so the key is never made again and a
 * restore can re-apply the erasure. Adapters: src/erasure/sqlite-data-keys.ts (embedded), mongodb-data-keys.ts (cluster);
 * both pass test/contracts/data-keys.contract.ts.
 */

/** `task-<id>` (a task's personal fields) or `account-<userId>` (those of the account's own streams). */
export type KeyScope = string;

/** An erased scope, as the ledger of erasures keeps it. `accountId` is 0 when the scope was erased before it had a key and no owner was given. */
export type Erasure = { scope: KeyScope; accountId: number; erasedAt: string };

export interface DataKeyStore {
  /** The scope's key; made (owned by `accountId`) when it has none. null when the scope was erased (never remade). */
  keyFor(scope: KeyScope, accountId: number): Promise<CryptoKey | null>;
  /** The scope's key; "erased" when destroyed; null when it never had one. */
  find(scope: KeyScope): Promise<CryptoKey | "erased" | null>;
  /**
   * Destroys the scope's key for good (its record keeps only scope, owner and erasedAt: a tombstone). A scope with no
   * key yet gets a tombstone too (owned by `accountId`, or 0), so none is made for it later. Erasing twice changes nothing.
   */
  erase(scope: KeyScope, accountId?: number): Promise<void>;
  /** Destroys every key the account owns (its tasks' and its own); returns how many. */
  eraseAccount(accountId: number): Promise<number>;
  /** Every erased scope with its owner and time (a restore re-applies them), oldest first. */
  erasures(): Promise<Erasure[]>;
  close(): Promise<void>;
}

/** A key's owner is an account id (0: none, for keys written before owners were recorded). */
export function assertAccountId(accountId: number): void {
  if (!Number.isSafeInteger(accountId) || accountId < 0) throw new TypeError(`data key owner ${accountId}: an account id (a whole number, 0 or more)`);
}

/** Scopes are `task-<id>` and `account-<id>`; the stored form of a field (field-cipher.ts) allows no other characters. */
export function assertScope(scope: KeyScope): void {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(scope)) throw new TypeError(`data key scope ${JSON.stringify(scope)}: 1 to 200 letters, digits, - and _`);
}
