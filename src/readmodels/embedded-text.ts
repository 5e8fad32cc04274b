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
 * every word indexed: `<hex of the scope>z<word>` (hex has no z, so the two never run together; scopeSql). A query for
 * one user's documents then reads that user's entries of a word alone: matching a scope column instead
 * (`scope : x AND ...`) walked the scope's whole posting list, 23 ms for a user with a million segments for
 * a word that by itself takes 0.6 ms. BM25's document frequencies are thereby the user's own. Tokenizer
 * unicode61 without diacritic folding: the caller indexes words it already folded (src/search/words.ts);
 * `_` is a token character, for the word pairs.
 *
 * With a `pairs` field in the spec, a second column holds the caller's word pairs (`a_b b_c`, each word
 * joined to the next; computed in JS beside the words, src/search/words.ts), each behind the scope as
 * `<hex>y<pair>`, and a phrase of n >= 2 words is matched as the phrase of its n - 1 pairs: the same rows,
 * through short posting lists where two common words' are long (a phrase of two common words over one
 * user's 1,000,000 segments: p99 33 ms on the words). The pairs are built by the caller, not in SQL: pairing
 * words in the triggers (JSON and lag()) made indexing ~33 µs a segment dearer, and a 100,000-segment
 * transcript missed the 5 s read-your-writes wait (commits b9e5dcf, 141fbc6). Prefix indexes for 1 to 4
 * letters (prefixLengths): they were left out for the same reason, until short prefixes missed their goal.
 */
import type { Scalar, TextClause, TextHit, TextIndexSpec } from "./port.ts";
import { isIndexSegment } from "./filter.ts";
import type { SqliteSession } from "./sqlite-session.ts";

const WORD = /^[\p{L}\p{N}]+$/u;
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

export const textTable = (collection: string) => `${collection}:text`;
const triggerNames = (collection: string) => ["insert", "update", "delete"].map((what) => `${collection}:text:${what}`);

/** The words' marker after the scope's hex, and the word pairs' (hex has neither). */
const WORD_MARK = "z";
const PAIR_MARK = "y";

/**
 * An integer scope (a user's id) is written in 16 hex digits, so that every scoped word starts with 17
 * characters and the prefix indexes below serve it; any other scope as `x` and the hex of its text (never
 * the same as an integer's: hex has no x), searched the same, without the prefix indexes' help.
 */
const SCOPE_WIDTH = 16;
const scopeSql = (scope: string) => `(CASE typeof(${scope}) WHEN 'integer' THEN printf('%0${SCOPE_WIDTH}X', ${scope}) ELSE 'x' || hex(${scope}) END)`;

/**
 * FTS5 prefix indexes for a scoped word's first 1 to 4 letters (issue 33): without them a prefix query merges
 * the posting lists of every word it starts before it returns a row: over one user's 1,000,000 segments, p99
 * 231 ms for 1 letter, 128 for 2, 80 for 3, 48 for 4; with them 18, 17, 13 and 12 ms (bench/search.bench.ts).
 * They double the cost of indexing (the pairs get them too, unused): a 100,000-segment transcript written 250
 * segments a transaction took 6.7 s against 3.0 s, taken out 3.4 s against 1.6 (scratch measurement).
 */
const prefixLengths = [1, 2, 3, 4].map((letters) => SCOPE_WIDTH + 1 + letters).join(" ");

/** The words (or pairs) of a row as indexed, each behind its scope's prefix: SQL over the two JSON values. */
function scopedWords(scope: string, words: string, mark = WORD_MARK): string {
  const prefix = `(${scopeSql(scope)} || '${mark}')`;
  return `(${prefix} || replace(${words}, ' ', ' ' || ${prefix}))`;
}

/** The scope as words carry it in the index: what scopeSql makes of the same value in SQLite. */
const scopeHex = (scope: Scalar): string => {
  const integer = typeof scope === "boolean" ? Number(scope) : scope;
  if (typeof integer === "number" && Number.isInteger(integer))
    return BigInt.asUintN(64, BigInt(integer)).toString(16).toUpperCase().padStart(SCOPE_WIDTH, "0");
  return `x${Buffer.from(String(scope)).toString("hex")}`;
};

/** The index's columns and, as SQL over a row's JSON `doc`, their values. */
function columns(index: TextIndexSpec, doc: string): { names: string; values: string } {
  const field = (path: string) => `json_extract(${doc}, '$.${path}')`;
  const scope = field(index.scope);
  const words = scopedWords(scope, field(index.field));
  if (index.pairs === undefined) return { names: "words", values: words };
  return { names: "words, pairs", values: `${words}, ${scopedWords(scope, field(index.pairs), PAIR_MARK)}` };
}

/** The SQL that makes a collection's text index and its triggers (compared on re-creation: same spec, nothing to do). */
export function textIndexSql(collection: string, index: TextIndexSpec): { table: string; triggers: string[] } {
  for (const path of [index.scope, index.field, ...(index.pairs === undefined ? [] : [index.pairs])])
    if (!FIELD_PATH.test(path) || path.split(".").some(isIndexSegment)) throw new TypeError(`text index on ${collection}: invalid field ${path}`);
  const fts = `"${textTable(collection)}"`;
  const { names } = columns(index, "doc");
  const values = (row: string) => columns(index, `${row}.doc`).values;
  const words = (row: string) => `(${values(row)})`;
  const insert = (row: string) => `INSERT INTO ${fts} (rowid, ${names}) VALUES (${row}.rowid, ${values(row)});`;
  const remove = `INSERT INTO ${fts} (${fts}, rowid, ${names}) VALUES ('delete', old.rowid, ${values("old")});`;
  const [onInsert, onUpdate, onDelete] = triggerNames(collection);
  return {
    table: `CREATE VIRTUAL TABLE ${fts} USING fts5(${names}, content='', prefix='${prefixLengths}', tokenize="unicode61 remove_diacritics 0 tokenchars '_'")`,
    triggers: [
      `CREATE TRIGGER "${onInsert}" AFTER INSERT ON "${collection}" BEGIN ${insert("new")} END`,
      // Only when what is indexed changed: a projection restamping a document's position leaves the index alone.
      `CREATE TRIGGER "${onUpdate}" AFTER UPDATE OF doc ON "${collection}" WHEN ${words("old")} IS NOT ${words("new")} BEGIN ${remove} ${insert("new")} END`,
      `CREATE TRIGGER "${onDelete}" AFTER DELETE ON "${collection}" BEGIN ${remove} END`,
    ],
  };
}

/** Creates the text index (indexing what the collection holds), or checks that the one there has this spec. */
export function createTextIndex(session: SqliteSession, collection: string, index: TextIndexSpec): void {
  const sql = textIndexSql(collection, index);
  session.write(collection, () => {
    const existing = session.statement(`SELECT sql FROM sqlite_schema WHERE type = 'trigger' AND name = ?`).get(triggerNames(collection)[0]!) as {
      sql: string;
    } | null;
    // FTS5 otherwise keeps a deleted row's words in its segments until they merge: a deleted task's would stay in the
    // file. Not free: taking 1,000 rows out of a 50,000-row index took 350 ms a commit against 8 (scratch measurement,
    // 2 shared cores), so the search projection takes segments out 50 at a time.
    const secureDelete = `INSERT INTO "${textTable(collection)}" ("${textTable(collection)}", rank) VALUES ('secure-delete', 1)`;
    // Merged in small steps after the writes (embedded-text-merges.ts), not inside them.
    const noAutomerge = `INSERT INTO "${textTable(collection)}" ("${textTable(collection)}", rank) VALUES ('automerge', 0)`;
    if (existing !== null) {
      if (existing.sql !== sql.triggers[0]) throw new TypeError(`${collection} already has a text index with another spec`);
      session.statement(secureDelete).run();
      session.statement(noAutomerge).run();
      return;
    }
    session.statement(`DROP TABLE IF EXISTS "${textTable(collection)}"`).run();
    session.statement(sql.table).run();
    session.statement(secureDelete).run();
    session.statement(noAutomerge).run();
    for (const trigger of sql.triggers) session.statement(trigger).run();
    const { names, values } = columns(index, "doc");
    session.statement(`INSERT INTO "${textTable(collection)}" (rowid, ${names}) SELECT rowid, ${values} FROM "${collection}"`).run();
  });
  session.textIndexMade(collection);
}

/**
 * FTS5's query language for the clauses, every token quoted (so no user text is ever read as syntax). With
 * `pairs` (the index has the pairs column), a phrase of n >= 2 words is the phrase of its n - 1 pairs:
 * `a b c` is `a_b` right before `b_c`, exactly where the words stand in that order, and `a b*` is a pair
 * starting `a_b`. A single word, or every phrase without `pairs`, is matched on the words.
 */
export function matchExpression(scope: Scalar, clauses: readonly TextClause[], pairs = false): string {
  if (clauses.length === 0) throw new TypeError("a text query needs at least one clause");
  const hex = scopeHex(scope);
  const phrases = clauses.map((clause) => {
    const { words } = clause;
    if (words.length === 0) throw new TypeError("a text clause needs at least one word");
    for (const word of words) if (!WORD.test(word)) throw new TypeError(`not a word for a text query: ${JSON.stringify(word)}`);
    const tokens =
      pairs && words.length > 1 ? words.slice(1).map((word, i) => `${hex}${PAIR_MARK}${words[i]}_${word}`) : words.map((word) => hex + WORD_MARK + word);
    return `"${tokens.join(" ")}"${clause.prefix ? " *" : ""}`;
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
  const fts = `"${textTable(collection)}"`;
  const first = `FROM ${fts} WHERE ${fts} MATCH ? ORDER BY rowid LIMIT ${Math.max(0, Math.floor(atMost))}`;
  return session.read(() => {
    const match = matchExpression(scope, clauses, hasPairs(session, collection));
    const { n } = session.statement(`SELECT count(*) AS n FROM (SELECT rowid ${first})`).get(match) as { n: number };
    if (n === 0 || limit <= 0 || skip >= n) return { total: n, hits: [] };
    const page = `SELECT id, score FROM (SELECT rowid AS id, bm25(${fts}) AS score ${first}) ORDER BY score, id LIMIT ? OFFSET ?`;
    const rows = session
      .statement(`SELECT c.doc AS doc, m.score AS score FROM (${page}) m JOIN "${collection}" c ON c.rowid = m.id ORDER BY m.score, m.id`)
      .all(match, limit, skip) as { doc: string; score: number }[];
    return { total: n, hits: rows.map((row) => ({ document: JSON.parse(row.doc) as T, score: -row.score })) };
  });
}

/** Whether the collection's text index has the pairs column: read from its schema each time (a replay may replace the table). */
function hasPairs(session: SqliteSession, collection: string): boolean {
  const row = session.statement(`SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(textTable(collection)) as { sql: string } | null;
  return row?.sql.includes("fts5(words, pairs,") ?? false;
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
