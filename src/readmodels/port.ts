/**
 * The read-model store: only what the projections and queries use, shaped like MongoDB's driver so that
 * projections are written once and run on both adapters (embedded SQLite documents, MongoDB). Both pass
 * test/contracts/readmodels.contract.ts.
 *
 * Documents are plain JSON (no Date, no undefined): timestamps are ISO strings. `_id` is a string.
 */
export type Document = { _id: string } & { [key: string]: unknown };

export type Scalar = string | number | boolean | null;

/**
 * What a filter may ask of one field (a dotted path):
 * - a scalar: equality, never across types (1 is not true, "1" is not 1); `null` also matches a missing field;
 * - `$in`: equal to one of the values;
 * - `$lt` / `$lte`: below a bound of the same type (strings by code point);
 * - `$contains`: a string field that contains this text (case-sensitive, no pattern: store a lower-cased
 *   copy to search without case, as tasks do with `nameKey`). MongoDB refuses a NUL in it.
 */
export type Condition = Scalar | { $in: readonly Scalar[] } | { $lt: Scalar } | { $lte: Scalar } | { $contains: string };

/** Every field's condition must hold; `{}` matches every document. */
export type Filter = { [path: string]: Condition };

export type Sort = { [field: string]: 1 | -1 };

export type FindOptions = { sort?: Sort; skip?: number; limit?: number };

export type Update = {
  $set?: { [path: string]: unknown };
  $unset?: { [path: string]: "" | 1 | true };
  $inc?: { [path: string]: number };
};

export type UpdateResult = { matchedCount: number; modifiedCount: number; upsertedCount: number };

/**
 * One clause of a text query: a phrase of one or more words that follow each other in the text, its last
 * word a prefix when `prefix`. A query matches a document when every clause does. Words are letters and
 * digits only, as the caller's normalisation wrote them into the indexed field (anything else is a TypeError).
 */
export type TextClause = { words: readonly string[]; prefix: boolean };

/** A text index: see Collection.createTextIndex. */
export type TextIndexSpec = { scope: string; field: string; pairs?: string };

/** A document a text query found, with its relevance: higher is more relevant (BM25 or the store's equivalent). */
export type TextHit<T> = { document: T; score: number };

export interface Collection<T extends Document = Document> {
  findOne(filter: Filter): Promise<T | null>;
  find(filter: Filter, options?: FindOptions): Promise<T[]>;
  countDocuments(filter?: Filter): Promise<number>;
  /** Inserts; rejects with DuplicateKeyError when `_id` (or a unique index) already exists. */
  insertOne(doc: T): Promise<void>;
  /** Inserts all of them, or (on a duplicate key) none on the embedded store and those before it on MongoDB. */
  insertMany(docs: readonly T[]): Promise<void>;
  replaceOne(filter: Filter, doc: T, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateOne(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<UpdateResult>;
  updateMany(filter: Filter, update: Update): Promise<UpdateResult>;
  /**
   * Updates one document atomically and returns it as it is after the update (null when nothing
   * matched and `upsert` is off): counters shared by several processes rely on it.
   */
  findOneAndUpdate(filter: Filter, update: Update, options?: { upsert?: boolean }): Promise<T | null>;
  deleteOne(filter: Filter): Promise<{ deletedCount: number }>;
  deleteMany(filter: Filter): Promise<{ deletedCount: number }>;
  /** `unique`: no two documents that have all the keys share their values; documents lacking a key are left out. */
  createIndex(keys: Sort, options?: { unique?: boolean }): Promise<void>;
  /** Drops the index made by `createIndex(keys)`, when there is one: for an index a wider one replaced. */
  dropIndex(keys: Sort): Promise<void>;
  /** Removes every document (and keeps the indexes). */
  clear(): Promise<void>;
  /**
   * A full-text index over `field`, a string of words (letters and digits) separated by single spaces,
   * searched within one value of `scope` at a time (one user's documents). At most one per collection.
   * `pairs`, optional: a field holding each word of `field` joined to the next by `_` (`a_b b_c`), which a
   * store may match phrases on (the embedded store does; MongoDB ignores it).
   */
  createTextIndex(index: TextIndexSpec): Promise<void>;
  /**
   * The documents whose `scope` field equals `scope` and that match every clause, most relevant first (ties
   * in a stable order), and how many match. When more than `atMost` match, only `atMost` of them are
   * counted, ranked and paged through (which ones is the store's: the embedded store takes the first written), so
   * `total` is at most `atMost` and a page past it is empty. The collection must have a text index.
   */
  searchText(
    scope: Scalar,
    clauses: readonly TextClause[],
    options: { skip: number; limit: number; atMost: number },
  ): Promise<{ total: number; hits: TextHit<T>[] }>;
}

export interface DocumentStore {
  collection<T extends Document = Document>(name: string): Collection<T>;
  /**
   * A value that stays the same for as long as nothing in `collections` can have changed, so what was read
   * from them may be kept and reused under it (read it before reading, and keep the result only if it is
   * still the same after). Null where the store cannot tell cheaply (MongoDB): keep nothing.
   */
  changeStamp(collections: readonly string[]): string | null;
  /**
   * Puts each `source` collection (its documents and indexes) in the place of its `target`: a reader sees
   * all of the old `target` or all of the new one, never a mix or nothing, and the sources are gone after.
   * How a replay swaps a read model rebuilt beside the live one into service. The embedded store replaces
   * all the pairs in one transaction; MongoDB each collection atomically, one after the other.
   */
  replaceCollections(pairs: readonly { target: string; source: string }[]): Promise<void>;
  /** Removes a collection with its documents and indexes; nothing when it does not exist. */
  dropCollection(name: string): Promise<void>;
  close(): Promise<void>;
}

export class DuplicateKeyError extends Error {
  constructor(collection: string, detail: string) {
    super(`duplicate key in ${collection}: ${detail}`);
    this.name = "DuplicateKeyError";
  }
}
