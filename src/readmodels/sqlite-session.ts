import type { Statement } from "bun:sqlite";
import type { SqlParam } from "./embedded-sql.ts";

/**
 * What a collection of the embedded store (embedded-collection.ts) and its text index (embedded-text.ts) need from
 * the store's one connection (embedded.ts).
 */
export interface SqliteSession {
  /** A prepared statement, cached per SQL string. */
  statement(sql: string): Statement;
  explain(sql: string, params: SqlParam[]): string[];
  /** Runs `work` in one IMMEDIATE transaction; unique violations become DuplicateKeyError. */
  write<R>(collection: string, work: () => R): R;
  /**
   * What a write waits for before it begins, while the WAL is being caught up (src/core/wal-checkpoints.ts); null when
   * it may begin at once.
   */
  writesPaused(): Promise<void> | null;
  /** Runs `work` in the read snapshot this turn of the event loop shares. */
  read<R>(work: () => R): R;
  /** The collection's text index was made: what the store knew of it is asked again. */
  textIndexMade(collection: string): void;
}
