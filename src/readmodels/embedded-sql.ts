/**
 * Translates a parsed filter into SQL over `json_extract(doc, '$.path')`, the very expressions that
 * `createIndex` indexes, so SQLite's planner can match them to expression indexes. Paths were validated
 * by filter.ts and are the only thing spliced into SQL; every value is a bound parameter.
 *
 * json_extract yields SQL values: NULL for missing and null, 1/0 for booleans, TEXT for strings and for
 * arrays/objects (as JSON). So wherever types could be confused, the condition also checks json_type.
 * Only there: json_type reads the document, while a bare json_extract comparison can be answered from
 * an expression index alone (counting a user's 10,000 tasks must not parse 10,000 documents).
 */
import type { Scalar } from "./port.ts";
import type { Condition, FilterNode } from "./filter.ts";
import { isIndexSegment } from "./filter.ts";

export type SqlParam = string | number | null;
export type Translation = { where: string; params: SqlParam[]; exact: true };

type Field = { value: string; type: string; jsonPath: string };

/** `_id` lives in the `id` column (primary key); it is always a string. */
export function field(segments: readonly string[]): Field {
  const jsonPath = "$" + segments.map((s) => (isIndexSegment(s) ? `[${s}]` : `.${s}`)).join("");
  if (segments.length === 1 && segments[0] === "_id") return { value: "id", type: "'text'", jsonPath };
  return { value: `json_extract(doc, '${jsonPath}')`, type: `json_type(doc, '${jsonPath}')`, jsonPath };
}

/** SQL for a parsed filter: every condition translates exactly, so no candidate needs re-checking in JS. */
export function translate(node: FilterNode): Translation {
  const params: SqlParam[] = [];

  const condition = (f: Field, c: Condition): string => {
    const { value: v, type: t } = f;
    switch (c.op) {
      case "eq":
        return equals(v, t, c.value);
      case "in":
        return oneOf(v, t, c.values);
      case "lt":
      case "lte":
        return below(v, t, c.op, c.value);
      case "contains":
        return `(${t} = 'text' AND instr(${v}, ${bind(c.text)}) > 0)`;
    }
  };

  const bind = (value: SqlParam): string => {
    params.push(value);
    return "?";
  };

  // `= +?`, not `= ?`: SQLite re-prepares a statement that has both `column = ?` and an ORDER BY every time
  // it is run (2.5 to 4 µs, more than the query itself). The unary plus changes neither the plan, the index
  // used, nor the comparison (a parameter has no affinity either way).
  const equals = (v: string, t: string, x: Scalar): string => {
    if (x === null) return `${v} IS NULL`;
    if (typeof x === "boolean") return `(${v} = +${bind(x ? 1 : 0)} AND ${t} = '${x}')`;
    // No TEXT equals a number (no affinity on either side), so only 1 and 0 could be mistaken: for true and false.
    if (typeof x === "number") return boolLike(x) ? `(${v} = +${bind(x)} AND ${t} IN ('integer', 'real'))` : `${v} = +${bind(x)}`;
    // Arrays/objects extract as JSON text, which only a string starting with [ or { could equal.
    return looksLikeJson(x) ? `(${v} = +${bind(x)} AND ${t} = 'text')` : `${v} = +${bind(x)}`;
  };

  const oneOf = (v: string, t: string, xs: Scalar[]): string => {
    const strings = xs.filter((x): x is string => typeof x === "string");
    const numbers = xs.filter((x): x is number => typeof x === "number");
    const parts: string[] = [];
    if (strings.length > 0) {
      const list = `${v} IN (${strings.map(bind).join(", ")})`;
      parts.push(strings.some(looksLikeJson) ? `(${list} AND ${t} = 'text')` : list);
    }
    if (numbers.length > 0) {
      const list = `${v} IN (${numbers.map(bind).join(", ")})`;
      parts.push(numbers.some(boolLike) ? `(${list} AND ${t} IN ('integer', 'real'))` : list);
    }
    for (const b of [true, false]) if (xs.includes(b)) parts.push(equals(v, t, b));
    if (xs.includes(null)) parts.push(`${v} IS NULL`);
    return parts.length === 0 ? "0" : `(${parts.join(" OR ")})`;
  };

  const below = (v: string, t: string, op: "lt" | "lte", x: Scalar): string => {
    if (x === null) return op === "lte" ? `${v} IS NULL` : "0";
    const types = typeof x === "string" ? "('text')" : typeof x === "number" ? "('integer', 'real')" : "('true', 'false')";
    const operand = typeof x === "boolean" ? (x ? 1 : 0) : x;
    return `(${v} ${op === "lt" ? "<" : "<="} ${bind(operand)} AND ${t} IN ${types})`;
  };

  const where = joinAll(
    node.fields.map((f) => {
      const sqlField = field(f.segments);
      return joinAll(
        f.conditions.map((c) => condition(sqlField, c)),
        " AND ",
      );
    }),
    " AND ",
  );
  return { where, params, exact: true };
}

export function orderBy(sort: [string[], 1 | -1][]): string {
  if (sort.length === 0) return "";
  return " ORDER BY " + sort.map(([segments, dir]) => `${field(segments).value}${dir === -1 ? " DESC" : ""}`).join(", ");
}

function joinAll(parts: string[], separator: string): string {
  if (parts.length === 0) return "1";
  return parts.length === 1 ? parts[0]! : `(${parts.join(separator)})`;
}

/** Whether a string could equal an array or object as json_extract yields them (JSON text). */
export function looksLikeJson(x: string): boolean {
  return x.startsWith("[") || x.startsWith("{");
}

/** The numbers json_extract also yields for booleans. */
export function boolLike(x: number): boolean {
  return x === 0 || x === 1;
}
