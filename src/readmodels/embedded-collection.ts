/**
 * A collection of the embedded store (embedded.ts): every filter translates to SQL (embedded-sql.ts); writes
 * are read-modify-write in JS inside one IMMEDIATE transaction each.
 */
import type { Collection, Document, Filter, FindOptions, Scalar, Sort, TextClause, TextHit, TextIndexSpec, Update, UpdateResult } from "./port.ts";
import { idOnly, parseFilter, parseFindOptions } from "./filter.ts";
import { orderBy, type SqlParam } from "./embedded-sql.ts";
import { translateFilter } from "./embedded-sql-shapes.ts";
import { createIndex, dropIndex } from "./embedded-indexes.ts";
import { applyUpdate, parseUpdate, seedFromFilter, type ParsedUpdate } from "./update.ts";
import { createTextIndex, searchText } from "./embedded-text.ts";
import type { SqliteSession } from "./sqlite-session.ts";

type Row = { id: string; doc: string };

export class EmbeddedCollection<T extends Document = Document> implements Collection<T> {
  private readonly table: string;
  private readonly byIdSql: string;

  constructor(
    private readonly name: string,
    private readonly store: SqliteSession,
  ) {
    this.table = `"${name}"`;
    this.byIdSql = `SELECT id, doc FROM ${this.table} WHERE id = ?`;
  }

  /**
   * `work` in a write transaction of its own, begun at once but while the store's WAL is being caught up
   * (src/core/wal-checkpoints.ts): then after it, the writes that waited in the order they came. The store's own
   * writes (making a table, an index, dropping or renaming) do not wait: they are rare, and only delay the WAL's
   * starting over.
   */
  private async written<R>(work: () => R): Promise<R> {
    const paused = this.store.writesPaused();
    if (paused !== null) await paused;
    return this.store.write(this.name, work);
  }

  async findOne(filter: Filter): Promise<T | null> {
    return this.store.read(() => this.findOneNow(filter));
  }

  private findOneNow(filter: Filter): T | null {
    const id = idOnly(filter);
    if (id !== null) {
      const row = this.byId(id);
      return row === null ? null : (JSON.parse(row.doc) as T);
    }
    return this.select(filter, { limit: 1 })[0] ?? null;
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    return this.store.read(() => this.select(filter, options));
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    return this.store.read(() => this.count(filter));
  }

  private count(filter: Filter): number {
    const t = translateFilter(filter);
    const row = this.store.statement(`SELECT count(*) AS n FROM ${this.table} WHERE ${t.where}`).get(...t.params);
    return (row as { n: number }).n;
  }

  async insertOne(doc: T): Promise<void> {
    await this.written(() => this.insert(doc));
  }

  async insertMany(docs: readonly T[]): Promise<void> {
    if (docs.length === 0) return;
    await this.written(() => {
      for (const doc of docs) this.insert(doc);
    });
  }

  async replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateResult> {
    const node = parseFilter(filter);
    const seededId = seedFromFilter(node)._id;
    return this.written(() => {
      const [row] = this.candidates(filter, 1);
      if (row !== undefined) {
        if (doc._id !== row.id) throw new TypeError(`replaceOne in ${this.name}: _id cannot change`);
        return { matchedCount: 1, modifiedCount: this.save(row, doc) ? 1 : 0, upsertedCount: 0 };
      }
      if (!options?.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      if (seededId !== undefined && seededId !== doc._id) throw new TypeError(`replaceOne in ${this.name}: _id differs from the filter's`);
      this.insert(doc);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    });
  }

  async updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    const parsed = parseUpdate(update);
    return this.written(() => {
      const [row] = this.candidates(filter, 1);
      if (row !== undefined) return { matchedCount: 1, modifiedCount: this.modify(row, parsed) ? 1 : 0, upsertedCount: 0 };
      if (!options?.upsert) return { matchedCount: 0, modifiedCount: 0, upsertedCount: 0 };
      const doc = seedFromFilter(parseFilter(filter));
      if (typeof doc._id !== "string") doc._id = crypto.randomUUID();
      applyUpdate(doc, parsed);
      this.insert(doc as T);
      return { matchedCount: 0, modifiedCount: 0, upsertedCount: 1 };
    });
  }

  async findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
    const parsed = parseUpdate(update);
    const id = idOnly(filter);
    return this.written(() => {
      // Destructuring closes the generator, which resets its statement.
      const [row] = id !== null ? [this.byId(id) ?? undefined] : this.candidates(filter, 1);
      if (row !== undefined) {
        const doc = JSON.parse(row.doc) as T;
        applyUpdate(doc, parsed);
        this.save(row, doc);
        return doc;
      }
      if (!options?.upsert) return null;
      const doc = id !== null ? { _id: id } : seedFromFilter(parseFilter(filter));
      if (typeof doc._id !== "string") doc._id = crypto.randomUUID();
      applyUpdate(doc, parsed);
      this.insert(doc as T);
      return doc as T;
    });
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    const parsed = parseUpdate(update);
    return this.written(() => {
      // Collected first: rewriting rows while walking an index over them could visit a row twice.
      const rows = [...this.candidates(filter)];
      let modified = 0;
      for (const row of rows) if (this.modify(row, parsed)) modified++;
      return { matchedCount: rows.length, modifiedCount: modified, upsertedCount: 0 };
    });
  }

  async deleteOne(filter: Filter): Promise<{ deletedCount: number }> {
    return this.written(() => {
      const [row] = this.candidates(filter, 1);
      if (row === undefined) return { deletedCount: 0 };
      this.store.statement(`DELETE FROM ${this.table} WHERE id = ?`).run(row.id);
      return { deletedCount: 1 };
    });
  }

  async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const t = translateFilter(filter);
    return this.written(() => {
      if (t.exact) return { deletedCount: this.store.statement(`DELETE FROM ${this.table} WHERE ${t.where}`).run(...t.params).changes };
      const ids = [...this.candidates(filter)].map((row) => row.id);
      const remove = this.store.statement(`DELETE FROM ${this.table} WHERE id = ?`);
      for (const id of ids) remove.run(id);
      return { deletedCount: ids.length };
    });
  }

  async createIndex(keys: Sort, options?: { unique?: boolean }): Promise<void> {
    createIndex(this.store, this.name, keys, options);
  }

  async dropIndex(keys: Sort): Promise<void> {
    dropIndex(this.store, this.name, keys);
  }

  async clear(): Promise<void> {
    await this.written(() => this.store.statement(`DELETE FROM ${this.table}`).run());
  }

  async createTextIndex(index: TextIndexSpec): Promise<void> {
    createTextIndex(this.store, this.name, index);
  }

  async searchText(
    scope: Scalar,
    clauses: readonly TextClause[],
    options: { skip: number; limit: number; atMost: number },
  ): Promise<{ total: number; hits: TextHit<T>[] }> {
    return searchText<T>(this.store, this.name, scope, clauses, options);
  }

  /** EXPLAIN QUERY PLAN of what `find` would run (not part of the port; used to check index use). */
  explain(filter: Filter, options?: FindOptions): string[] {
    const { sql, params } = this.selectSql(filter, options);
    return this.store.explain(sql, params);
  }

  private select(filter: Filter, options?: FindOptions): T[] {
    const { sql, params } = this.selectSql(filter, options);
    return (this.store.statement(sql).all(...params) as Row[]).map((r) => JSON.parse(r.doc) as T);
  }

  private selectSql(filter: Filter, options?: FindOptions) {
    const { sort, skip, limit } = parseFindOptions(options);
    const t = translateFilter(filter);
    let sql = `SELECT id, doc FROM ${this.table} WHERE ${t.where}${orderBy(sort)}`;
    const params: SqlParam[] = [...t.params];
    if (limit > 0 || skip > 0) {
      sql += " LIMIT ? OFFSET ?";
      params.push(limit > 0 ? limit : -1, skip);
    }
    return { sql, params };
  }

  private byId(id: string): Row | null {
    return this.store.statement(this.byIdSql).get(id) as Row | null;
  }

  /** Rows matching `filter` in natural order. */
  private *candidates(filter: Filter, limit = 0): Generator<Row> {
    const id = idOnly(filter);
    if (id !== null) {
      const row = this.byId(id);
      if (row !== null) yield row;
      return;
    }
    const t = translateFilter(filter);
    const sql = `SELECT id, doc FROM ${this.table} WHERE ${t.where}${limit > 0 ? ` LIMIT ${limit}` : ""}`;
    yield* this.store.statement(sql).iterate(...t.params) as IterableIterator<Row>;
  }

  private insert(doc: Document): void {
    if (typeof doc._id !== "string") throw new TypeError(`insert into ${this.name}: _id must be a string`);
    this.store.statement(`INSERT INTO ${this.table} (id, doc) VALUES (?, ?)`).run(doc._id, JSON.stringify(doc));
  }

  /** Writes `doc` over `row`; false when nothing changed (MongoDB's modifiedCount ignores no-op writes). */
  private save(row: Row, doc: Document): boolean {
    const json = JSON.stringify(doc);
    if (json === row.doc) return false;
    this.store.statement(`UPDATE ${this.table} SET doc = ? WHERE id = ?`).run(json, row.id);
    return true;
  }

  private modify(row: Row, update: ParsedUpdate): boolean {
    const doc = JSON.parse(row.doc) as Document;
    applyUpdate(doc, update);
    return this.save(row, doc);
  }
}
