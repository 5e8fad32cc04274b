/**
 * A copied database file, opened with bun:sqlite: never the live file (see sqlite-online-backup.ts),
 * only the copy, once the backup library has closed it.
 */
import { Database } from "bun:sqlite";
import { BackupRefused } from "./manifest.ts";

function problemsOf(db: Database): string[] {
  return db
    .query<{ integrity_check: string }, []>("PRAGMA integrity_check")
    .all()
    .map((row) => row.integrity_check)
    .filter((line) => line !== "ok");
}

function openCopy(path: string, readonly: boolean): Database {
  try {
    return new Database(path, readonly ? { readonly: true } : { readwrite: true });
  } catch (error) {
    throw new BackupRefused(`${path} cannot be opened: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Runs `work` on the copy, and turns SQLite's complaints (a corrupt file) into a refusal that names it. */
function withCopy<T>(path: string, readonly: boolean, work: (db: Database) => T): T {
  const db = openCopy(path, readonly);
  try {
    const problems = problemsOf(db);
    if (problems.length > 0) throw new BackupRefused(`${path} fails SQLite's integrity check: ${problems.slice(0, 3).join("; ")}`);
    return work(db);
  } catch (error) {
    if (error instanceof BackupRefused) throw error;
    throw new BackupRefused(`${path}: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    db.close();
  }
}

/**
 * Makes the copy one self-contained file: rollback journal instead of WAL (the server switches back to
 * WAL when it opens it). `prepare` runs first, in the same connection.
 */
function seal(path: string, prepare: (db: Database) => void = () => {}): void {
  withCopy(path, false, (db) => {
    prepare(db);
    db.exec("PRAGMA journal_mode = DELETE");
  });
}

export type LogSummary = { count: number; lastPosition: number };

function logSummary(db: Database): LogSummary {
  const row = db.query<{ count: number; last: number | null }, []>("SELECT count(*) AS count, max(position) AS last FROM events").get();
  return { count: row?.count ?? 0, lastPosition: row?.last ?? 0 };
}

/** The copied log, sealed; what it holds, for the manifest. */
export function sealLogCopy(path: string): LogSummary {
  let summary: LogSummary = { count: 0, lastPosition: 0 };
  seal(path, (db) => void (summary = logSummary(db)));
  return summary;
}

/**
 * The copied read models, sealed, with every lease given up: they name the processes that held them when
 * the copy was taken, and a restored DATA_DIR's first process should not wait for them to run out.
 */
export function sealReadModelsCopy(path: string): void {
  seal(path, (db) => {
    const leases = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'leases'").get();
    if (leases) db.exec("UPDATE leases SET doc = json_set(doc, '$.expiresAt', 0)");
  });
}

/** The copied data keys, sealed (one file, as the others). */
export function sealDataKeysCopy(path: string): void {
  seal(path);
}

/** Checks a backed-up database (read only) and, for the log, what it holds. */
export function checkDatabaseCopy(path: string, kind: "log" | "read models" | "data keys"): LogSummary | null {
  return withCopy(path, true, (db) => (kind === "log" ? logSummary(db) : null));
}
