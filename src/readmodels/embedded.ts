/**
 * The embedded read-model store: one SQLite table per collection, `(id TEXT PRIMARY KEY, doc TEXT)` with
 * the document as JSON, queried through `json_extract` expressions that expression indexes can serve.
 * WAL and a busy timeout let a CLI `replay` write the same file while the server runs.
 *
 * Reads made in the same turn of the event loop share one read transaction (a snapshot), which ends at
 * `setImmediate` or when this connection writes. Opening and closing a WAL read transaction costs about
 * 2.7 µs, three times a by-id read inside one, and every authenticated request makes three or more reads:
 * sharing the snapshot is most of what a request costs the store. Writes through this connection are
 * seen at once; another connection's commit is seen from the next turn on.
 *
 * The snapshot also dates what a cache may keep (`changeStamp`): SQLite's data_version, read as the snapshot
 * opens, changes whenever another connection has committed since, and this connection counts its own
 * writes per collection.
 */
import { Database, SQLiteError, type Statement } from "bun:sqlite";
import type { Document, DocumentStore } from "./port.ts";
import { pagesPerStep, stepATurn, TextIndexMerges, type InBackground } from "./embedded-text-merges.ts";
import { DuplicateKeyError } from "./port.ts";
import type { SqlParam } from "./embedded-sql.ts";
import { EmbeddedCollection } from "./embedded-collection.ts";
import type { SqliteSession } from "./sqlite-session.ts";
import { textIndexObjects, textTriggersMovedTo } from "./embedded-text.ts";

export { EmbeddedCollection } from "./embedded-collection.ts";

const COLLECTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const STATEMENT_CACHE_SIZE = 256;

/**
 * Checkpoints of a WAL made off the store's connection: told of each write, waited for when the store closes, and
 * asked before each write whether writes wait for a while (`writesPaused`: while the WAL is caught up, so that it can
 * start over).
 */
export type OffConnectionCheckpoints = {
  written(): void;
  writesPaused(): Promise<void> | null;
  settled(): Promise<void>;
  close(): Promise<void>;
};

/**
 * What keeps the store in shape apart from its writes, as the service gives it (src/adapters.ts): where merge steps of
 * its text indexes run (`inBackground`; by default a step a turn), and what checkpoints its WAL off its connection
 * (`checkpoints`, handed the file and what to do should it fail; by default SQLite checkpoints inside the commits).
 */
export type EmbeddedUpkeep = {
  inBackground?: InBackground;
  checkpoints?: (path: string, fallBack: () => void) => OffConnectionCheckpoints;
};

export class EmbeddedDocumentStore implements DocumentStore, SqliteSession {
  private readonly db: Database;
  // Filters with $in lists of varying length make many distinct SQL strings, so the cache is bounded.
  private readonly statements = new Map<string, Statement>();
  // CREATE TABLE IF NOT EXISTS may wait for the write lock (a replay running), so only once per name.
  // A collection object holds nothing but its name (and SQL strings): a new one per call costs nothing and is
  // typed as the caller asks; the tables already made are remembered here.
  private readonly tables = new Set<string>();
  // Prepared once: `db.transaction(work)` would build a new wrapper function on every write.
  private readonly begin: Statement;
  private readonly beginRead: Statement;
  private readonly commit: Statement;
  private readonly rollback: Statement;
  private readonly dataVersion: Statement;
  private snapshotOpen = false;
  /** data_version as the open snapshot began (another connection's commits since the last one change it). */
  private snapshotVersion = 0;
  /** This connection's writes, per collection: they leave data_version as it is. */
  private readonly writesTo = new Map<string, number>();
  /** Whether each collection written to has a text index (embedded-text.ts), asked once per collection. */
  private readonly textIndexed = new Map<string, boolean>();
  private readonly textMerges: TextIndexMerges;
  private readonly checkpoints: OffConnectionCheckpoints | null = null;
  private readonly endSnapshot = () => {
    if (!this.snapshotOpen) return;
    this.snapshotOpen = false;
    if (this.db.inTransaction) this.commit.run();
  };

  constructor(path: string, upkeep: EmbeddedUpkeep = {}) {
    this.db = new Database(path, { create: true });
    this.db.exec("PRAGMA busy_timeout = 5000");
    const { journal_mode: journal } = this.db.query("PRAGMA journal_mode = WAL").get() as { journal_mode: string };
    this.textMerges = new TextIndexMerges(
      (collection) => this.mergeTextIndex(collection),
      upkeep.inBackground ?? stepATurn,
      () => this.writesPaused(),
    );
    // A file's WAL may be checkpointed elsewhere (the service's thread, src/core/wal-checkpoints.ts); one in memory has none.
    if (journal === "wal" && upkeep.checkpoints) {
      this.db.exec("PRAGMA wal_autocheckpoint = 0");
      this.checkpoints = upkeep.checkpoints(path, () => this.db.exec("PRAGMA wal_autocheckpoint = 1000"));
    }
    this.db.exec("PRAGMA synchronous = NORMAL");
    // A deleted document's bytes are overwritten, not left in free pages: deleting a task deletes its words.
    this.db.exec("PRAGMA secure_delete = ON");
    this.begin = this.db.prepare("BEGIN IMMEDIATE");
    this.beginRead = this.db.prepare("BEGIN");
    this.dataVersion = this.db.prepare("PRAGMA data_version");
    this.commit = this.db.prepare("COMMIT");
    this.rollback = this.db.prepare("ROLLBACK");
  }

  collection<T extends Document = Document>(name: string): EmbeddedCollection<T> {
    if (!this.tables.has(name)) {
      if (!COLLECTION_NAME.test(name) || name.startsWith("sqlite_")) throw new TypeError(`invalid collection name ${name}`);
      this.write(name, () => this.db.exec(`CREATE TABLE IF NOT EXISTS "${name}" (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`));
      this.tables.add(name);
    }
    return new EmbeddedCollection<T>(name, this);
  }

  /**
   * One write transaction: the target table is dropped and the source renamed in its place. SQLite keeps
   * the indexes with the renamed table but under the source's names ("ix2:<source>:..."), so they are
   * recreated under the target's, as createIndex would name them. Readers in WAL keep their snapshot of
   * the old table until their read transaction ends, and see the new one whole from the next.
   */
  async replaceCollections(pairs: readonly { target: string; source: string }[]): Promise<void> {
    for (const { target, source } of pairs) {
      for (const name of [target, source])
        if (!COLLECTION_NAME.test(name) || name.startsWith("sqlite_")) throw new TypeError(`invalid collection name ${name}`);
      this.collection(source);
    }
    if (pairs.length === 0) return;
    for (const { target } of pairs.slice(1)) this.writesTo.set(target, (this.writesTo.get(target) ?? 0) + 1);
    this.write(pairs[0]!.target, () => {
      for (const { target, source } of pairs) this.renameTable(source, target);
    });
    for (const { source, target } of pairs) {
      this.forget(source);
      // The target is the source's table now: whether it has a text index is asked again.
      this.textIndexed.delete(target);
    }
  }

  private renameTable(source: string, target: string): void {
    // A text index (embedded-text.ts) moves too: its FTS table is renamed, its triggers made anew on the target.
    const triggers = textTriggersMovedTo(this, source, target);
    for (const name of textIndexObjects.triggers(source)) this.db.exec(`DROP TRIGGER IF EXISTS "${name}"`);
    this.db.exec(`DROP TABLE IF EXISTS "${textIndexObjects.table(target)}"`);
    this.db.exec(`DROP TABLE IF EXISTS "${target}"`);
    this.db.exec(`ALTER TABLE "${source}" RENAME TO "${target}"`);
    if (triggers.length > 0) {
      this.db.exec(`ALTER TABLE "${textIndexObjects.table(source)}" RENAME TO "${textIndexObjects.table(target)}"`);
      for (const sql of triggers) this.db.exec(sql);
    }
    const indexes = this.db.prepare(`SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL`).all(target) as {
      name: string;
      sql: string;
    }[];
    for (const { name, sql } of indexes) {
      const renamed = name.replace(`:${source}:`, `:${target}:`);
      if (renamed === name) continue;
      this.db.exec(`DROP INDEX "${name}"`);
      this.db.exec(sql.replace(`"${name}"`, `"${renamed}"`));
    }
  }

  async dropCollection(name: string): Promise<void> {
    if (!COLLECTION_NAME.test(name) || name.startsWith("sqlite_")) throw new TypeError(`invalid collection name ${name}`);
    this.write(name, () => {
      this.db.exec(`DROP TABLE IF EXISTS "${name}"`);
      this.db.exec(`DROP TABLE IF EXISTS "${textIndexObjects.table(name)}"`);
    });
    this.forget(name);
  }

  /** A table that is gone: that it was made, and the statements prepared on it. */
  private forget(name: string): void {
    this.tables.delete(name);
    this.textIndexed.delete(name);
    this.textMerges.forget(name);
    for (const [sql, statement] of this.statements) {
      if (!sql.includes(`"${name}"`) && !sql.includes(`"${textIndexObjects.table(name)}"`)) continue;
      statement.finalize();
      this.statements.delete(sql);
    }
  }

  async close(): Promise<void> {
    await this.textMerges.close();
    await this.checkpoints?.close();
    this.endSnapshot();
    for (const statement of this.statements.values()) statement.finalize();
    this.statements.clear();
    for (const statement of [this.begin, this.beginRead, this.dataVersion, this.commit, this.rollback]) statement.finalize();
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

  /** Runs `work` in this turn's read snapshot, opening it if this is the turn's first read. */
  read<R>(work: () => R): R {
    if (!this.db.inTransaction) this.openSnapshot();
    return work();
  }

  changeStamp(collections: readonly string[]): string {
    if (!this.db.inTransaction) this.openSnapshot();
    let stamp = String(this.snapshotVersion);
    for (const name of collections) stamp += `:${this.writesTo.get(name) ?? 0}`;
    return stamp;
  }

  private openSnapshot(): void {
    this.beginRead.run();
    // A pragma that reads the file header: it also starts the read transaction, so the version is the snapshot's.
    this.snapshotVersion = (this.dataVersion.get() as { data_version: number }).data_version;
    this.snapshotOpen = true;
    setImmediate(this.endSnapshot);
  }

  /**
   * Runs `work` in a BEGIN IMMEDIATE transaction, so a read-modify-write never loses a race. The turn's
   * snapshot ends first: upgrading a read transaction that another connection's commit has outdated fails
   * at once with SQLITE_BUSY, whatever the busy timeout.
   */
  write<R>(collection: string, work: () => R): R {
    this.endSnapshot();
    this.writesTo.set(collection, (this.writesTo.get(collection) ?? 0) + 1);
    try {
      // Inside another transaction (never from this store's own code), bun nests with a SAVEPOINT.
      if (this.db.inTransaction) return this.db.transaction(work).immediate();
      const result = this.committed(work);
      if (this.hasTextIndex(collection)) this.textMerges.written(collection);
      return result;
    } catch (error) {
      if (error instanceof SQLiteError && /^SQLITE_CONSTRAINT_(UNIQUE|PRIMARYKEY)$/.test(error.code ?? "")) {
        throw new DuplicateKeyError(collection, error.message);
      }
      throw error;
    }
  }

  /** `work` in a BEGIN IMMEDIATE transaction of its own, committed (and the WAL's checkpointer told), or rolled back. */
  private committed<R>(work: () => R): R {
    this.endSnapshot();
    this.begin.run();
    try {
      const result = work();
      this.commit.run();
      this.checkpoints?.written();
      return result;
    } catch (error) {
      // A failed COMMIT may already have rolled back on its own.
      if (this.db.inTransaction) this.rollback.run();
      throw error;
    }
  }

  writesPaused(): Promise<void> | null {
    return this.checkpoints?.writesPaused() ?? null;
  }

  /** Resolves once no text index waits to be merged and no WAL checkpoint is under way (what a test waits for). */
  async maintenanceSettled(): Promise<void> {
    await this.textMerges.settled();
    await this.checkpoints?.settled();
  }

  textIndexMade(collection: string): void {
    this.textIndexed.set(collection, true);
  }

  private hasTextIndex(collection: string): boolean {
    let indexed = this.textIndexed.get(collection);
    if (indexed === undefined) {
      indexed = this.statement(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(textIndexObjects.table(collection)) !== null;
      this.textIndexed.set(collection, indexed);
    }
    return indexed;
  }

  /**
   * One bounded step of merging the collection's text index (embedded-text-merges.ts), in a write transaction of its
   * own that changes no document (so no change stamp moves). FTS5 says it merged by adding 2 or more to total_changes.
   */
  private mergeTextIndex(collection: string): boolean {
    const table = textIndexObjects.table(collection);
    const merge = this.statement(`INSERT INTO "${table}" ("${table}", rank) VALUES ('merge', ${pagesPerStep})`);
    const totalChanges = this.statement("SELECT total_changes() AS changes");
    const changes = () => (totalChanges.get() as { changes: number }).changes;
    return this.committed(() => {
      const before = changes();
      merge.run();
      return changes() - before >= 2;
    });
  }
}
