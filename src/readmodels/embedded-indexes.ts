import type { Sort } from "./port.ts";
import { indexName, parseSort } from "./filter.ts";
import { field } from "./embedded-sql.ts";
import type { SqliteSession } from "./sqlite-session.ts";

/**
 * Creates the expression index on `keys` over collection `collection` (its table), or checks that the one there
 * has the same options. The `_id` key alone needs none: the primary key already is one.
 */
export function createIndex(session: SqliteSession, collection: string, keys: Sort, options?: { unique?: boolean }): void {
  const sort = parseSort(keys);
  if (sort.length === 0) throw new TypeError("an index needs at least one key");
  if (sort.length === 1 && sort[0]![0].join(".") === "_id") return;
  const keyName = indexName(keys);
  // "ix2": indexes now end with the keys' json_type (see below); an "ix" index from before is replaced.
  const name = `ix2:${collection}:${keyName}`;
  const unique = options?.unique === true;
  const existing = session.statement(`SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?`).get(name) as { sql: string } | null;
  if (existing !== null) {
    if (existing.sql.startsWith("CREATE UNIQUE") !== unique) throw new TypeError(`index ${name} exists with other options`);
    return;
  }
  const fields = sort.map(([segments, dir]) => ({ field: field(segments), dir }));
  // The json_type of each key goes last: where embedded-sql.ts must tell 1 from true (or a string from an
  // array), its type check is then answered from the index too, and the order the keys give is kept.
  const expressions = [
    ...fields.map(({ field: f, dir }) => `${f.value}${dir === -1 ? " DESC" : ""}`),
    ...fields.filter(({ field: f }) => f.value !== "id").map(({ field: f }) => f.type),
  ].join(", ");
  session.write(collection, () => {
    session.statement(`CREATE ${unique ? "UNIQUE " : ""}INDEX IF NOT EXISTS "${name}" ON "${collection}" (${expressions})`).run();
    session.statement(`DROP INDEX IF EXISTS "ix:${collection}:${keyName}"`).run();
  });
}

/** Drops the index on `keys`, under its present name and the one before it. */
export function dropIndex(session: SqliteSession, collection: string, keys: Sort): void {
  const keyName = indexName(keys);
  session.write(collection, () => {
    for (const name of [`ix2:${collection}:${keyName}`, `ix:${collection}:${keyName}`]) session.statement(`DROP INDEX IF EXISTS "${name}"`).run();
  });
}
