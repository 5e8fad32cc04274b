/**
 * The cluster read-model store: the port mapped 1:1 onto the official `mongodb` driver. Filters and
 * updates are parsed by the same code as the embedded store's first, so anything outside the port's
 * subset fails here too instead of only in production's other profile.
 */
import { MongoClient, MongoServerError, type Db, type Document as MongoDocument, type Collection as MongoCollection } from "mongodb";
import type { Collection, Document, DocumentStore, Filter, FindOptions, Scalar, Sort, TextClause, TextHit, Update, UpdateResult } from "./port.ts";
import { DuplicateKeyError } from "./port.ts";
import { indexName, parseFilter, parseFindOptions, parseSort } from "./filter.ts";
import { parseUpdate, seedFromFilter } from "./update.ts";
import { textIndexKeys, textQuery } from "./mongodb-text.ts";

/**
 * The port's filter in MongoDB's query language: the same operators but `$contains`, which becomes a
 * `$regex` of the escaped text (MongoDB refuses a NUL there, so the port does too on this adapter).
 */
export function toMongoFilter(filter: Filter): MongoDocument {
  const query: MongoDocument = {};
  for (const field of parseFilter(filter).fields) {
    const operators: MongoDocument = {};
    for (const condition of field.conditions) {
      if (condition.op === "eq") query[field.path] = condition.value;
      else if (condition.op === "in") operators.$in = condition.values;
      else if (condition.op === "contains") {
        if (condition.text.includes("\0")) throw new TypeError(`${field.path}: $contains cannot look for a NUL on MongoDB`);
        operators.$regex = condition.text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      } else operators[`$${condition.op}`] = condition.value;
    }
    if (Object.keys(operators).length > 0) query[field.path] = operators;
  }
  return query;
}

const DUPLICATE_KEY = 11000;
const NAMESPACE_NOT_FOUND = 26;
const INDEX_NOT_FOUND = 27;
const NAMESPACE_EXISTS = 48;

export class MongoDocumentStore implements DocumentStore {
  private readonly client: MongoClient;
  private readonly db: Db;

  /** The client connects on first use; `ignoreUndefined` drops undefined fields as JSON.stringify does. */
  constructor(url: string, databaseName: string) {
    this.client = new MongoClient(url, { ignoreUndefined: true });
    this.db = this.client.db(databaseName);
  }

  collection<T extends Document = Document>(name: string): Collection<T> {
    return new MongoBackedCollection<T>(name, this.db.collection<MongoDocument>(name));
  }

  /**
   * renameCollection with dropTarget is one atomic catalogue change on a replica set; indexes move with it. A
   * source nobody wrote to does not exist on MongoDB, and renaming it fails: every source is made first, so a read
   * model with no documents (webhook deliveries where none was ever sent) swaps in empty, and no pair is swapped
   * before all can be.
   */
  async replaceCollections(pairs: readonly { target: string; source: string }[]): Promise<void> {
    const existing = new Set((await this.db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name));
    for (const { source } of pairs) {
      if (existing.has(source)) continue;
      try {
        await this.db.createCollection(source);
      } catch (error) {
        if (!(error instanceof MongoServerError && error.code === NAMESPACE_EXISTS)) throw error;
      }
    }
    for (const { target, source } of pairs) await this.db.renameCollection(source, target, { dropTarget: true });
  }

  async dropCollection(name: string): Promise<void> {
    try {
      await this.db.dropCollection(name);
    } catch (error) {
      if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return;
      throw error;
    }
  }

  /** Other processes write the same database and no read tells of it for free: nothing may be kept. */
  changeStamp(): null {
    return null;
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

class MongoBackedCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly inner: MongoCollection<MongoDocument>,
  ) {}

  async findOne(filter: Filter): Promise<T | null> {
    const doc = await this.guard(() => this.inner.findOne(toMongoFilter(filter)));
    return doc === null ? null : plain<T>(doc);
  }

  async find(filter: Filter, options?: FindOptions): Promise<T[]> {
    const query = toMongoFilter(filter);
    const { skip, limit } = parseFindOptions(options);
    const docs = await this.guard(() => this.inner.find(query, { ...(options?.sort ? { sort: options.sort } : {}), skip, limit }).toArray());
    return docs.map((doc) => plain<T>(doc));
  }

  async countDocuments(filter: Filter = {}): Promise<number> {
    const query = toMongoFilter(filter);
    return this.guard(() => this.inner.countDocuments(query));
  }

  async insertOne(doc: T): Promise<void> {
    if (typeof doc._id !== "string") throw new TypeError(`insert into ${this.name}: _id must be a string`);
    // A copy, because the driver may add fields to the object it is given.
    await this.guard(() => this.inner.insertOne({ ...doc } as MongoDocument));
  }

  async insertMany(docs: readonly T[]): Promise<void> {
    if (docs.length === 0) return;
    for (const doc of docs) if (typeof doc._id !== "string") throw new TypeError(`insert into ${this.name}: _id must be a string`);
    await this.guard(() => this.inner.insertMany(docs.map((doc) => ({ ...doc }) as MongoDocument)));
  }

  async replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateResult> {
    const query = toMongoFilter(filter);
    const result = await this.guard(() => this.inner.replaceOne(query, { ...doc }, { upsert: options?.upsert === true }));
    return counts(result);
  }

  async updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult> {
    const node = parseFilter(filter);
    parseUpdate(update);
    const upsert = options?.upsert === true;
    // Without an _id in the filter the server would insert an ObjectId; the port promises string ids.
    const withId = upsert && typeof seedFromFilter(node)._id !== "string" ? { ...update, $setOnInsert: { _id: crypto.randomUUID() } } : update;
    return counts(await this.guard(() => this.inner.updateOne(toMongoFilter(filter), withId, { upsert })));
  }

  async findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null> {
    const node = parseFilter(filter);
    parseUpdate(update);
    const upsert = options?.upsert === true;
    const withId = upsert && typeof seedFromFilter(node)._id !== "string" ? { ...update, $setOnInsert: { _id: crypto.randomUUID() } } : update;
    const doc = await this.guard(() =>
      this.inner.findOneAndUpdate(toMongoFilter(filter), withId, { upsert, returnDocument: "after", includeResultMetadata: false }),
    );
    return doc === null ? null : plain<T>(doc);
  }

  async updateMany(filter: Filter, update: Update): Promise<UpdateResult> {
    parseUpdate(update);
    return counts(await this.guard(() => this.inner.updateMany(toMongoFilter(filter), update)));
  }

  async deleteOne(filter: Filter): Promise<{ deletedCount: number }> {
    const result = await this.guard(() => this.inner.deleteOne(toMongoFilter(filter)));
    return { deletedCount: result.deletedCount };
  }

  async deleteMany(filter: Filter): Promise<{ deletedCount: number }> {
    const result = await this.guard(() => this.inner.deleteMany(toMongoFilter(filter)));
    return { deletedCount: result.deletedCount };
  }

  async createIndex(keys: Sort, options?: { unique?: boolean }): Promise<void> {
    const sort = parseSort(keys);
    if (sort.length === 0) throw new TypeError("an index needs at least one key");
    // The _id index always exists, and MongoDB refuses `unique` on it.
    if (sort.length === 1 && sort[0]![0].join(".") === "_id") return;
    // `unique: false` is left out rather than sent, so re-creating an index never differs in options.
    // A unique index covers only documents that have all its keys, as the embedded store's does (SQLite
    // never compares NULLs): MongoDB would index a missing key as null and allow one such document.
    const partialFilterExpression = Object.fromEntries(sort.map(([segments]) => [segments.join("."), { $exists: true }]));
    await this.guard(() => this.inner.createIndex(keys, options?.unique === true ? { unique: true, partialFilterExpression } : {}));
  }

  async dropIndex(keys: Sort): Promise<void> {
    try {
      // createIndex above left the naming to MongoDB, which names an index after its keys.
      await this.inner.dropIndex(indexName(keys));
    } catch (error) {
      if (error instanceof MongoServerError && (error.code === INDEX_NOT_FOUND || error.code === NAMESPACE_NOT_FOUND)) return;
      throw error;
    }
  }

  async clear(): Promise<void> {
    await this.guard(() => this.inner.deleteMany({}));
  }

  /** A compound text index, equality on the scope first (MongoDB then answers within one scope), plus the scope alone for prefix-only queries. */
  async createTextIndex(index: { scope: string; field: string }): Promise<void> {
    const { text, scope } = textIndexKeys(index);
    await this.guard(() => this.inner.createIndex(text, { default_language: "none", name: `text:${index.scope}:${index.field}` }));
    await this.guard(() => this.inner.createIndex(scope));
  }

  async searchText(
    scope: Scalar,
    clauses: readonly TextClause[],
    { skip, limit, atMost }: { skip: number; limit: number; atMost: number },
  ): Promise<{ total: number; hits: TextHit<T>[] }> {
    const index = await this.textIndex();
    const { filter, ranked } = textQuery(index, scope, clauses);
    // Counted up to atMost, as the port allows: the best atMost of all matches by textScore (the embedded store takes the first written).
    const most = Math.floor(atMost);
    const total = most <= 0 ? 0 : await this.guard(() => this.inner.countDocuments(filter, { limit: most }));
    if (total === 0 || limit <= 0 || skip >= total) return { total, hits: [] };
    const take = Math.min(limit, total - skip);
    const cursor = ranked
      ? this.inner.find(filter, { projection: { _score: { $meta: "textScore" } }, sort: { _score: { $meta: "textScore" }, _id: 1 }, skip, limit: take })
      : this.inner.find(filter, { sort: { _id: 1 }, skip, limit: take });
    const docs = await this.guard(() => cursor.toArray());
    return {
      total,
      hits: docs.map(({ _score, ...doc }) => ({ document: plain<T>(doc), score: typeof _score === "number" ? _score : 0 })),
    };
  }

  /** Which fields the collection's text index covers, read from the index itself (named by createTextIndex). */
  private async textIndex(): Promise<{ scope: string; field: string }> {
    const indexes = await this.guard(() => this.inner.listIndexes().toArray());
    for (const { name } of indexes) {
      const match = typeof name === "string" ? /^text:([^:]+):([^:]+)$/.exec(name) : null;
      if (match) return { scope: match[1]!, field: match[2]! };
    }
    throw new TypeError(`${this.name} has no text index`);
  }

  private async guard<R>(operation: () => Promise<R>): Promise<R> {
    try {
      return await operation();
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) throw new DuplicateKeyError(this.name, error.message);
      throw error;
    }
  }
}

function counts(result: { matchedCount: number; modifiedCount: number; upsertedCount: number }): UpdateResult {
  return { matchedCount: result.matchedCount, modifiedCount: result.modifiedCount, upsertedCount: result.upsertedCount };
}

/** Our writes always carry string ids; a foreign ObjectId is turned into its hex string, never leaked. */
function plain<T extends Document>(doc: MongoDocument): T {
  const id: unknown = doc._id;
  return (typeof id === "string" ? doc : { ...doc, _id: String(id) }) as T;
}
