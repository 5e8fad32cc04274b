/**
 * The embedded store's text index: an FTS5 table `"<collection>:text"` beside the collection's table, kept
 * in step by triggers on it, so every write path (insert, replace, update, delete, clear) indexes the
 * document in the same transaction, and a replay's shadow collection gets its own index from `setup`.
 *
 * The FTS5 table is contentless: it keeps only the index, not a copy of the text, and its rowid is the
 * collection row's rowid (stable: these tables are never VACUUMed). A row leaves it by FTS5's 'delete'
 * command with the words it was indexed with (the old document still holds them), not by
 * `contentless_delete=1`: that option's tombstones make FTS5 rewrite whole segments as deletions add up, and
 * taking a 100,000-segment transcript out 1,000 rows a transaction stalled 8 commits for 100 to 780 ms;
 * with the 'delete' command none took over 39 ms (scratch measurement, 400,000 rows indexed). The scope is part of
 * every word indexed: `<hex of the scope>z<word>` (hex has no z, so the two never run together). A query for
 * one user's documents then reads that user's entries of a word alone: matching a scope column instead
 * (`scope : x AND ...`) walked the scope's whole posting list, 23 ms for a user with a million segments for
 * a word that by itself takes 0.6 ms. BM25's document frequencies are thereby the user's own. Tokenizer
 * unicode61 without diacritic folding: the caller indexes words it already folded (src/search/words.ts).
 */
import type { Scalar, TextClause, TextHit } from "./port.ts";
import { isIndexSegment } from "./filter.ts";
import type { SqliteSession } from "./embedded-collection.ts";

const WORD = /^[\p{L}\p{N}]+$/u;
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export const textTable = (collection: string) => `${collection}:text`;
const triggerNames = (collection: string) => ["insert", "update", "delete"].map((what) => `${collection}:text:${what}`);

/** The words of a row as indexed, each behind its scope's prefix: SQL over the two JSON values. */
function scopedWords(scope: string, words: string): string {
  const prefix = `(hex(${scope}) || 'z')`;
  return `(${prefix} || replace(${words}, ' ', ' ' || ${prefix}))`;
}

/** The prefix scope's words carry in the index (see above): the same as `hex()` of its text in SQLite. */
const scopePrefix = (scope: Scalar) => `${Buffer.from(String(scope)).toString("hex")}z`;

/** The SQL that makes a collection's text index and its triggers (compared on re-creation: same spec, nothing to do). */
export function textIndexSql(collection: string, index: { scope: string; field: string }): { table: string; triggers: string[] } {
  for (const path of [index.scope, index.field])
    if (!FIELD_PATH.test(path) || path.split(".").some(isIndexSegment)) throw new TypeError(`text index on ${collection}: invalid field ${path}`);
  const fts = `"${textTable(collection)}"`;
  const words = (row: string) => scopedWords(`json_extract(${row}.doc, '$.${index.scope}')`, `json_extract(${row}.doc, '$.${index.field}')`);
  const insert = (row: string) => `INSERT INTO ${fts} (rowid, words) VALUES (${row}.rowid, ${words(row)});`;
  const remove = `INSERT INTO ${fts} (${fts}, rowid, words) VALUES ('delete', old.rowid, ${words("old")});`;
  const [onInsert, onUpdate, onDelete] = triggerNames(collection);
  return {
    table: `CREATE VIRTUAL TABLE ${fts} USING fts5(words, content='', tokenize='unicode61 remove_diacritics 0')`,
    triggers: [
      `CREATE TRIGGER "${onInsert}" AFTER INSERT ON "${collection}" BEGIN ${insert("new")} END`,
      // Only when what is indexed changed: a projection restamping a document's position leaves the index alone.
      `CREATE TRIGGER "${onUpdate}" AFTER UPDATE OF doc ON "${collection}" WHEN ${words("old")} IS NOT ${words("new")} BEGIN ${remove} ${insert("new")} END`,
      `CREATE TRIGGER "${onDelete}" AFTER DELETE ON "${collection}" BEGIN ${remove} END`,
    ],
  };
}

/** Creates the text index (indexing what the collection holds), or checks that the one there has this spec. */
export function createTextIndex(session: SqliteSession, collection: string, index: { scope: string; field: string }): void {
  const sql = textIndexSql(collection, index);
  session.write(collection, () => {
    const existing = session.statement(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`).get(triggerNames(collection)[0]!) as {
      sql: string;
    } | null;
    if (existing !== null) {
      if (existing.sql !== sql.triggers[0]) throw new TypeError(`${collection} already has a text index with another spec`);
      return;
    }
    session.statement(`DROP TABLE IF EXISTS "${textTable(collection)}"`).run();
    session.statement(sql.table).run();
    for (const trigger of sql.triggers) session.statement(trigger).run();
    session
      .statement(
        `INSERT INTO "${textTable(collection)}" (rowid, words) SELECT rowid, ${scopedWords(`json_extract(doc, '$.${index.scope}')`, `json_extract(doc, '$.${index.field}')`)} FROM "${collection}"`,
      )
      .run();
  });
}

/** FTS5's query language for the clauses, every word quoted (so no user text is ever read as syntax). */
export function matchExpression(scope: Scalar, clauses: readonly TextClause[]): string {
  if (clauses.length === 0) throw new TypeError("a text query needs at least one clause");
  const prefix = scopePrefix(scope);
  const phrases = clauses.map((clause) => {
    if (clause.words.length === 0) throw new TypeError("a text clause needs at least one word");
    for (const word of clause.words) if (!WORD.test(word)) throw new TypeError(`not a word for a text query: ${JSON.stringify(word)}`);
    return `"${clause.words.map((word) => prefix + word).join(" ")}"${clause.prefix ? " *" : ""}`;
  });
  return phrases.join(" AND ");
}

/**
 * One page of the first `atMost` matches, best first, and how many of them there are (at most `atMost`),
 * in one read snapshot. bm25 is negative, lower better, so the score handed out is its negation. Ties go by
 * rowid, so pages never overlap.
 *
 * Only the first matches in rowid order (the order rows were written) are counted and ranked: FTS5 walks a
 * posting list in that order and stops there. Counting every match walked a broad query's whole posting
 * lists, and BM25 reads each match's positions and length, about 0.5 µs a match (ranking 650,000 matches
 * took 335 ms). The newest first (ORDER BY rowid DESC) would be the nicer choice, but FTS5 reads a term's
 * whole posting list to walk it backwards: the commonest word of one user's 1,000,000 segments took
 * 29.5 ms that way and 15 ms this way (bench/search.bench.ts, p50), against 33 ms counting all 652,812.
 */
export function searchText<T>(
  session: SqliteSession,
  collection: string,
  scope: Scalar,
  clauses: readonly TextClause[],
  { skip, limit, atMost }: { skip: number; limit: number; atMost: number },
): { total: number; hits: TextHit<T>[] } {
  const match = matchExpression(scope, clauses);
  const fts = `"${textTable(collection)}"`;
  const first = `FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rowid LIMIT ${Math.max(0, Math.floor(atMost))}`;
  return session.read(() => {
    const { n } = session.statement(`SELECT count(*) AS n FROM (SELECT rowid ${first})`).get(match) as { n: number };
    if (n === 0 || limit <= 0 || skip >= n) return { total: n, hits: [] };
    const rows = session
      .statement(
        `SELECT c.doc AS doc, m.score AS score FROM (SELECT id, score FROM (SELECT rowid AS id, bm25(${fts}) AS score ${first}) ORDER BY score, id LIMIT ? OFFSET ?) m JOIN "${collection}" c ON c.rowid = m.id ORDER BY m.score, m.id`,
      )
      .all(match, limit, skip) as { doc: string; score: number }[];
    return { total: n, hits: rows.map((row) => ({ document: JSON.parse(row.doc) as T, score: -row.score })) };
  });
}

/** The text index's triggers on `collection`, as SQL that recreates them on `target` (replaceCollections). */
export function textTriggersMovedTo(session: SqliteSession, collection: string, target: string): string[] {
  const rows = session.statement(`SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = ?`).all(collection) as {
    name: string;
    sql: string;
  }[];
  return rows
    .filter((row) => triggerNames(collection).includes(row.name))
    .map((row) => row.sql.replaceAll(`"${collection}"`, `"${target}"`).replaceAll(`"${collection}:`, `"${target}:`));
}

export const textIndexObjects = { table: textTable, triggers: triggerNames };
