/**
 * The embedded read-model store: one SQLite table per collection, `(id TEXT PRIMARY KEY, doc TEXT)` with
 * the document as JSON, queried through `json_extract` expressions that expression indexes can serve.
 * WAL and a busy timeout let a CLI `replay` write the same file while the server runs.
 */
import { Database, SQLiteError, type Statement } from "bun:sqlite";
import type { Document, DocumentStore } from "./port.ts";
import { DuplicateKeyError } from "./port.ts";
import type { SqlParam } from "./embedded-sql.ts";
import { EmbeddedCollection, type SqliteSession } from "./embedded-collection.ts";

export { EmbeddedCollection } from "./embedded-collection.ts";

const COLLECTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const STATEMENT_CACHE_SIZE = 256;

export class EmbeddedDocumentStore implements DocumentStore, SqliteSession {
  private readonly db: Database;
  // Filters with $in lists of varying length make many distinct SQL strings, so the cache is bounded.
  private readonly statements = new Map<string, Statement>();
  // CREATE TABLE IF NOT EXISTS may wait for the write lock (a replay running), so only once per name.
  private readonly tables = new Set<string>();

  constructor(path: string) {
    this.db = new Database(path, { create: true });
    this.db.exec("PRAGMA busy_timeout = 5000");
    this.db.exec("PRAGMA journal_mode = WAL");
    this.db.exec("PRAGMA synchronous = NORMAL");
  }

  collection<T extends Document = Document>(name: string): EmbeddedCollection<T> {
    if (!COLLECTION_NAME.test(name) || name.startsWith("sqlite_")) throw new TypeError(`invalid collection name ${name}`);
    if (!this.tables.has(name)) {
      this.db.exec(`CREATE TABLE IF NOT EXISTS "${name}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      this.tables.add(name);
    }
    return new EmbeddedCollection<T>(name, this);
  }

  async close(): Promise<void> {
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
    this.db.close();
  }

  statement(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) {
        const [oldestSql, oldest] = this.statements.entries().next().value!;
        oldest.finalize();
        this.statements.delete(oldestSql);
      }
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Not cached: bun leaves an EXPLAIN statement open, which would pin this connection's snapshot. */
  explain(sql: string, params: SqlParam[]): string[] {
    const statement = this.db.prepare(`EXPLAIN QUERY PLAN ${sql}`);
    try {
      return (statement.all(...params) as { detail: string }[]).map((r) => r.detail);
    } finally {
      statement.finalize();
    }
  }

  /** Runs `work` in a BEGIN IMMEDIATE transaction, so a read-modify-write never loses a race. */
  write<R>(collection: string, work: () => R): R {
    try {
      return this.db.transaction(work).immediate();
    } catch (error) {
      if (error instanceof SQLiteError && /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(error.code ?? "")) {
        throw new DuplicateKeyError(collection, error.message);
      }
      throw error;
    }
  }
}
