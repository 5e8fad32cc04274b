/**
 * Erasures outlive a restore. A backup holds the data keys of its time (src/backup/backup.ts copies the key store),
 * so restoring one taken before an erasure would bring the erased scopes' keys, and their fields, back. The key store
 * left in the DATA_DIR being restored into keeps the ledger of erasures (its tombstones): `admin restore` reads it
 * before the backup's store replaces it, and erases those scopes again in the restored copy (docs/operations.md,
 * "Backup and restore").
 */
import { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Erasure } from "./data-keys.ts";
import { checkpointAndTruncate, eraseScopeIn, erasuresIn } from "./sqlite-data-keys.ts";
import { sqliteBusyTimeoutMs } from "../core/sqlite-busy.ts";

/**
 * The erasures recorded by the key store at `path` (none when there is no store). The store is left as one file,
 * its WAL folded in and removed, so the restored copy can be renamed over it without a stale WAL beside it. Throws
 * when another process has it open.
 */
export function readErasureLedger(path: string): Erasure[] {
  if (!existsSync(path)) return [];
  const db = new Database(path, { readwrite: true });
  try {
    db.exec(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMs}`);
    const table = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'data_keys'").get();
    const erasures = table ? erasuresIn(db) : [];
    checkpointAndTruncate(db);
    // Only with no other connection open does SQLite leave WAL mode, folding the WAL in and removing it.
    const mode = db.query<{ journal_mode: string }, []>("PRAGMA journal_mode = DELETE").get()?.journal_mode;
    if (mode !== "delete") throw new Error("it is in use by another process (stop it first)");
    return erasures;
  } finally {
    db.close();
  }
}

/**
 * Erases again, in the key store copy at `path` (a restored backup's, not yet in use), every scope of `ledger`, with
 * its owner and original time; freed bytes are zeroed. Returns how many keys the copy still held and lost.
 */
export function reapplyErasures(path: string, ledger: readonly Erasure[]): number {
  if (ledger.length === 0) return 0;
  const db = new Database(path, { readwrite: true });
  try {
    db.exec("PRAGMA secure_delete = ON");
    return db
      .transaction(() => {
        let destroyed = 0;
        for (const erasure of ledger) if (eraseScopeIn(db, erasure.scope, erasure.accountId, erasure.erasedAt)) destroyed += 1;
        return destroyed;
      })
      .immediate();
  } finally {
    db.close();
  }
}

/**
 * The erasures recorded by another key store, read only: `admin restore --erasures-from` names a newer backup (its
 * `keys/data-keys.sqlite`) or a key store file, for a restore into a new DATA_DIR whose own ledger was lost with it.
 * Throws when there is no such store.
 */
export function readErasureLedgerAt(path: string, keysFile: string): Erasure[] {
  const file = existsSync(join(path, keysFile)) ? join(path, keysFile) : path;
  if (!existsSync(file) || statSync(file).isDirectory()) throw new Error(`${path} is neither a key store nor a backup or DATA_DIR holding ${keysFile}`);
  const db = new Database(file, { readonly: true });
  try {
    const table = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'data_keys'").get();
    if (!table) throw new Error(`${file} is not a key store (it has no data_keys table)`);
    return erasuresIn(db);
  } finally {
    db.close();
  }
}
