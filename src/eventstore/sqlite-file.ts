import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { retryWhileBusy, sqliteBusyTimeoutMs } from "../core/sqlite-busy.ts";

/**
 * Opens (or creates) the event store's SQLite file with its `events` table. `path` is a file (its folder is
 * created) or ":memory:" for tests.
 */
export function openEventsDatabase(path: string): Database {
  if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  db.exec(`PRAGMA busy_timeout = ${sqliteBusyTimeoutMs}`);
  // Durable up to the last checkpoint on power loss, but never corrupt; commits skip fsync, hence the 2 ms append budget.
  db.exec("PRAGMA synchronous = NORMAL");
  // Switching to WAL does not wait on the busy handler: two processes creating the file at once must retry.
  retryWhileBusy(() => db.exec("PRAGMA journal_mode = WAL"));
  retryWhileBusy(() =>
    db.exec(`CREATE TABLE IF NOT EXISTS events (
      position INTEGER PRIMARY KEY AUTOINCREMENT,
      stream_name TEXT NOT NULL,
      revision INTEGER NOT NULL,
      event_id TEXT NOT NULL UNIQUE,
      type TEXT NOT NULL,
      data TEXT NOT NULL,
      metadata TEXT NOT NULL,
      time TEXT NOT NULL,
      UNIQUE (stream_name, revision)
    )`),
  );
  return db;
}
