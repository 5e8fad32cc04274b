/**
 * The cluster's data-key store: the MongoDB collection `data_keys` through the official client, one document per
 * scope (a unique index on `scope`), the key as 32 raw bytes. An erasure unsets the key and keeps scope, owner and
 * `erasedAt`. MongoDB does not overwrite freed bytes on disk at once: its journal, its oplog (for the oplog's window)
 * and its backups may hold an erased key until they roll over; encrypt MongoDB's storage at rest (docs/operations.md).
 *
 * Cache: several processes share the collection and any of them may erase, so a live key is kept `ttlMs` (5 s by
 * default) and then read again; an erasure made by this process counts at once. So another process may still read
 * an erased scope's fields for up to `ttlMs` after the erasure.
 *
 * Untested unless MONGODB_URL is set (test/erasure/data-keys-mongodb.e2e.test.ts runs the contract suite then).
 */
import { Binary, MongoClient, MongoServerError, type Collection } from "mongodb";
import { DataKeyCache } from "./data-key-cache.ts";
import { assertAccountId, assertScope, type DataKeyStore, type Erasure, type KeyScope } from "./data-keys.ts";
import { importDataKey, newRawDataKey } from "./field-cipher.ts";
import { accountScope } from "./key-scopes.ts";

const DUPLICATE_KEY = 11000;
const DEFAULT_KEY_TTL_MS = 5000;

type KeyDocument = { scope: string; owner: number; key?: Binary | null; createdAt?: string | null; erasedAt: string | null };

function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === DUPLICATE_KEY;
}

export class MongoDataKeyStore implements DataKeyStore {
  private readonly client: MongoClient;
  private readonly keys: Collection<KeyDocument>;
  private readonly cache: DataKeyCache;
  private indexed: Promise<void> | null = null;

  constructor(url: string, databaseName: string, options: { ttlMs?: number } = {}) {
    this.client = new MongoClient(url, { ignoreUndefined: true });
    this.keys = this.client.db(databaseName).collection<KeyDocument>("data_keys");
    this.cache = new DataKeyCache(options.ttlMs ?? DEFAULT_KEY_TTL_MS);
  }

  async keyFor(scope: KeyScope, accountId: number): Promise<CryptoKey | null> {
    assertScope(scope);
    assertAccountId(accountId);
    const found = await this.cache.load(scope, async () => this.load(await this.findOrMake(scope, accountId)));
    return found === "erased" ? null : found;
  }

  async find(scope: KeyScope): Promise<CryptoKey | "erased" | null> {
    assertScope(scope);
    return this.cache.load(scope, async () => {
      await this.ensureIndex();
      return this.load(await this.keys.findOne({ scope }));
    });
  }

  async erase(scope: KeyScope, accountId = 0): Promise<void> {
    assertScope(scope);
    assertAccountId(accountId);
    await this.ensureIndex();
    const erasedAt = new Date().toISOString();
    const destroy = () => this.keys.updateOne({ scope, erasedAt: null }, { $set: { erasedAt }, $unset: { key: "", createdAt: "" } });
    if ((await destroy()).matchedCount === 0) {
      let inserted = false;
      try {
        inserted = (await this.keys.updateOne({ scope }, { $setOnInsert: { owner: accountId, erasedAt } }, { upsert: true })).upsertedCount > 0;
      } catch (error) {
        if (!isDuplicateKey(error)) throw error;
      }
      // Another process made the scope's key meanwhile (the upsert found it, or lost the race to insert): destroy it.
      if (!inserted) await destroy();
    }
    this.cache.markErased(scope);
  }

  async eraseAccount(accountId: number): Promise<number> {
    assertAccountId(accountId);
    await this.ensureIndex();
    let count = 0;
    // In rounds, so each erased scope is known here by name (for the cache), keys made meanwhile included.
    for (;;) {
      const scopes = (
        await this.keys
          .find({ owner: accountId, erasedAt: null }, { projection: { scope: 1 } })
          .limit(1000)
          .toArray()
      ).map((d) => d.scope);
      if (scopes.length === 0) return count;
      const erasedAt = new Date().toISOString();
      const result = await this.keys.updateMany({ scope: { $in: scopes }, erasedAt: null }, { $set: { erasedAt }, $unset: { key: "", createdAt: "" } });
      count += result.modifiedCount;
      for (const scope of scopes) this.cache.markErased(scope);
    }
  }

  async erasures(): Promise<Erasure[]> {
    const tombstones = await this.keys
      .find({ erasedAt: { $ne: null } }, { projection: { _id: 0, scope: 1, owner: 1, erasedAt: 1 } })
      .sort({ erasedAt: 1, scope: 1 })
      .toArray();
    return tombstones.map((d) => ({ scope: d.scope, accountId: d.owner, erasedAt: d.erasedAt ?? "" }));
  }

  async close(): Promise<void> {
    this.cache.clear();
    await this.client.close();
  }

  /**
   * The scope's document, read first (a key is made once and read many times, by every process every `ttlMs`), made
   * by one upsert when missing: of two processes making it at once, one inserts and the other reads what it inserted.
   */
  private async findOrMake(scope: KeyScope, accountId: number): Promise<KeyDocument | null> {
    await this.ensureIndex();
    const existing = await this.keys.findOne({ scope });
    if (existing) return existing;
    if (await this.accountErased(accountId)) return this.tombstone(scope, accountId);
    const made = await this.make(scope, accountId);
    // Checked again once made: an erasure of the account that ran meanwhile may not have seen the new key.
    return made?.erasedAt === null && (await this.accountErased(accountId)) ? this.tombstone(scope, accountId) : made;
  }

  /** Whether the account was erased: an erased account never gets a key again (a task created in a race with its erasure). */
  private async accountErased(accountId: number): Promise<boolean> {
    if (accountId === 0) return false;
    return (await this.keys.countDocuments({ scope: accountScope(accountId), erasedAt: { $ne: null } }, { limit: 1 })) > 0;
  }

  private async tombstone(scope: KeyScope, accountId: number): Promise<KeyDocument | null> {
    await this.erase(scope, accountId);
    return this.keys.findOne({ scope });
  }

  private async make(scope: KeyScope, accountId: number): Promise<KeyDocument | null> {
    const raw = newRawDataKey();
    // The filter's scope goes into an inserted document by itself.
    const made = { owner: accountId, key: new Binary(raw), createdAt: new Date().toISOString(), erasedAt: null };
    try {
      return await this.keys.findOneAndUpdate({ scope }, { $setOnInsert: made }, { upsert: true, returnDocument: "after" });
    } catch (error) {
      // Two upserts of a new scope at once: the unique index refuses one, which then finds the other's.
      if (!isDuplicateKey(error)) throw error;
      return this.keys.findOne({ scope });
    } finally {
      raw.fill(0);
    }
  }

  private async load(document: KeyDocument | null): Promise<CryptoKey | "erased" | null> {
    if (!document) return null;
    if ((document.erasedAt ?? null) !== null || !document.key) return "erased";
    return importDataKey(document.key.value());
  }

  private ensureIndex(): Promise<void> {
    this.indexed ??= this.keys
      .createIndexes([
        { key: { scope: 1 }, unique: true, name: "scope_unique" },
        { key: { owner: 1, erasedAt: 1 }, name: "owner_erased" },
      ])
      .then(
        () => {},
        (error: unknown) => {
          this.indexed = null;
          throw error;
        },
      );
    return this.indexed;
  }
}
