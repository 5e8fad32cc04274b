/**
 * The embedded profile's data-key store: its own SQLite file, `DATA_DIR/keys/data-keys.sqlite`, apart from the log
 * and the read models (a replay never drops or rebuilds it: losing it would erase everything). Keys are kept raw
 * (32 bytes) in a file only the service's user can read.
 *
 * Erasing overwrites: `secure_delete` zeroes the bytes SQLite frees, the tombstone keeps scope, owner and time only,
 * and the WAL is checkpointed and truncated at once, so the key's bytes are left in neither the database file nor
 * its WAL (test/erasure/data-keys-sqlite-bytes.unit.test.ts reads both).
 *
 * Other processes may share the file (`bun run admin erase` beside the server): `PRAGMA data_version` tells this
 * connection that one of them committed, and the cached keys are then read again before use.
 */
import { Database } from "bun:sqlite";
import { chmodSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DataKeyCache } from "./data-key-cache.ts";
import { assertAccountId, assertScope, type DataKeyStore, type Erasure, type KeyScope } from "./data-keys.ts";
import { importDataKey, newRawDataKey } from "./field-cipher.ts";
import { accountScope } from "./key-scopes.ts";
import { retryWhileBusy, sqliteBusyTimeoutMs } from "../core/sqlite-busy.ts";

/** Where the embedded store lives under DATA_DIR (src/backup/data-dir.ts names the same file for backups). */
export const dataKeysFile = "keys/data-keys.sqlite";

type KeyRow = { key: Uint8Array | null; erased_at: string | null };

/** Opens (or creates) the store's database at `path`, a file (its folder is made, 0700) or ":memory:". */
function openDataKeysDatabase(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const db = new Database(path, { create: true, strict: true });
  if (path !== ":memory:") chmodSync(path, 0o600);
  db.exec(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMs}`);
  // Freed bytes are zeroed, and the WAL is cut to nothing at each checkpoint: an erased key leaves no copy behind.
  db.exec("PRAGMA secure_delete = ON");
  // Switching to WAL does not wait on the busy handler: two processes creating the file at once must retry.
  retryWhileBusy(() => db.exec("PRAGMA journal_mode = WAL"));
  db.exec("PRAGMA journal_size_limit = 0");
  db.exec(`CREATE TABLE IF NOT EXISTS data_keys (
    scope TEXT PRIMARY KEY,
    owner INTEGER NOT NULL,
    key BLOB,
    created_at TEXT,
    erased_at TEXT,
    CHECK ((key IS NULL) = (erased_at IS NOT NULL))
  )`);
  db.exec("CREATE INDEX IF NOT EXISTS data_keys_owner ON data_keys (owner) WHERE erased_at IS NULL");
  return db;
}

/** Turns a scope into a tombstone (or writes one for a scope without a key); true when a key was destroyed. */
export function eraseScopeIn(db: Database, scope: KeyScope, owner: number, erasedAt: string): boolean {
  const destroyed = db
    .query("UPDATE data_keys SET key = NULL, created_at = NULL, erased_at = ? WHERE scope = ? AND erased_at IS NULL")
    .run(erasedAt, scope).changes;
  if (destroyed === 0) db.query("INSERT INTO data_keys (scope, owner, erased_at) VALUES (?, ?, ?) ON CONFLICT (scope) DO NOTHING").run(scope, owner, erasedAt);
  return destroyed > 0;
}

/** Every tombstone of `db`, oldest first. */
export function erasuresIn(db: Database): Erasure[] {
  return db
    .query<{ scope: string; owner: number; erased_at: string }, []>(
      "SELECT scope, owner, erased_at FROM data_keys WHERE erased_at IS NOT NULL ORDER BY erased_at, scope",
    )
    .all()
    .map((row) => ({ scope: row.scope, accountId: row.owner, erasedAt: row.erased_at }));
}

/** Moves every page out of the WAL and truncates it, so no older version of an erased row stays there. */
export function checkpointAndTruncate(db: Database): void {
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

export class SqliteDataKeyStore implements DataKeyStore {
  private readonly db: Database;
  private readonly cache = new DataKeyCache(null);
  private dataVersion: number;

  /** `path`: a file (normally `DATA_DIR/keys/data-keys.sqlite`) or ":memory:" for tests. */
  constructor(path: string) {
    this.db = openDataKeysDatabase(path);
    this.dataVersion = this.readDataVersion();
  }

  async keyFor(scope: KeyScope, accountId: number): Promise<CryptoKey | null> {
    assertScope(scope);
    assertAccountId(accountId);
    this.noticeOtherWriters();
    const found = await this.cache.load(scope, () => this.loadOrMake(scope, accountId));
    return found === "erased" ? null : found;
  }

  async find(scope: KeyScope): Promise<CryptoKey | "erased" | null> {
    assertScope(scope);
    this.noticeOtherWriters();
    return this.cache.load(scope, () => this.load(this.readKey(scope)));
  }

  async erase(scope: KeyScope, accountId = 0): Promise<void> {
    assertScope(scope);
    assertAccountId(accountId);
    const erasedAt = new Date().toISOString();
    const destroyed = this.db.transaction(() => eraseScopeIn(this.db, scope, accountId, erasedAt)).immediate();
    this.cache.markErased(scope);
    // Only a destroyed key leaves key bytes in the write-ahead log; a tombstone alone does not.
    if (destroyed) checkpointAndTruncate(this.db);
  }

  async eraseAccount(accountId: number): Promise<number> {
    assertAccountId(accountId);
    const erasedAt = new Date().toISOString();
    const scopes = this.db
      .transaction(() => {
        const owned = this.db
          .query<{ scope: string }, [number]>("SELECT scope FROM data_keys WHERE owner = ? AND erased_at IS NULL")
          .all(accountId)
          .map((row) => row.scope);
        for (const scope of owned) eraseScopeIn(this.db, scope, accountId, erasedAt);
        return owned;
      })
      .immediate();
    for (const scope of scopes) this.cache.markErased(scope);
    checkpointAndTruncate(this.db);
    return scopes.length;
  }

  async erasures(): Promise<Erasure[]> {
    return erasuresIn(this.db);
  }

  async close(): Promise<void> {
    this.cache.clear();
    this.db.close();
  }

  /**
   * The scope's row, made with a new key when there is none: an insert that does nothing when another process made
   * it first, so two makers get the same key. Written in an immediate transaction: other processes wait, none fails.
   */
  private loadOrMake(scope: KeyScope, accountId: number): Promise<CryptoKey | "erased" | null> {
    const existing = this.readKey(scope);
    if (existing) return this.load(existing);
    const row = this.db
      .transaction(() => {
        // An erased account never gets a key again (a task created in a race with its erasure): a tombstone instead.
        if (accountId > 0 && this.readKey(accountScope(accountId))?.erased_at) eraseScopeIn(this.db, scope, accountId, new Date().toISOString());
        const raw = newRawDataKey();
        this.db
          .query("INSERT INTO data_keys (scope, owner, key, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (scope) DO NOTHING")
          .run(scope, accountId, raw, new Date().toISOString());
        raw.fill(0);
        return this.readKey(scope);
      })
      .immediate();
    return this.load(row);
  }

  private readKey(scope: KeyScope): KeyRow | null {
    return this.db.query<KeyRow, [string]>("SELECT key, erased_at FROM data_keys WHERE scope = ?").get(scope);
  }

  private async load(row: KeyRow | null): Promise<CryptoKey | "erased" | null> {
    if (!row) return null;
    if (row.erased_at !== null || row.key === null) return "erased";
    try {
      return await importDataKey(row.key);
    } finally {
      // The CryptoKey is not extractable: the key's only readable copy in this process was this one.
      row.key.fill(0);
    }
  }

  /** Another connection committed (a key erased by `bun run admin erase`): cached keys are read again. */
  private noticeOtherWriters(): void {
    const version = this.readDataVersion();
    if (version === this.dataVersion) return;
    this.dataVersion = version;
    this.cache.forgetLive();
  }

  private readDataVersion(): number {
    return this.db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? 0;
  }
}
