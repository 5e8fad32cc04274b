/**
 * Translates a parsed filter into SQL over `json_extract(doc, '$.path')`, the very expressions that
 * `createIndex` indexes, so SQLite's planner can match them to expression indexes. Paths were validated
 * by filter.ts and are the only thing spliced into SQL; every value is a bound parameter.
 *
 * json_extract yields SQL values: NULL for missing and null, 1/0 for booleans, TEXT for strings and for
 * arrays/objects (as JSON). So wherever types could be confused, the condition also checks json_type.
 */
import type { Condition, FilterNode, Scalar } from "./filter.ts";
import { isIndexSegment } from "./filter.ts";

export type SqlParam = string | number | null;
export type Translation = { where: string; params: SqlParam[]; exact: boolean };

type Field = { value: string; type: string; jsonPath: string };

/** `_id` lives in the `id` column (primary key); it is always a string. */
export function field(segments: readonly string[]): Field {
  const jsonPath = "$" + segments.map((s) => (isIndexSegment(s) ? `[${s}]` : `.${s}`)).join("");
  if (segments.length === 1 && segments[0] === "_id") return { value: "id", type: "'text'", jsonPath };
  return { value: `json_extract(doc, '${jsonPath}')`, type: `json_type(doc, '${jsonPath}')`, jsonPath };
}

/**
 * `exact: false` means some condition (a regex SQL cannot express) was replaced by TRUE, so the SQL
 * selects a superset and the caller must re-check candidates with the JS matcher. That is sound because
 * the only negations generated ($ne, $nin) wrap exact conditions.
 */
export function translate(node: FilterNode): Translation {
  const params: SqlParam[] = [];
  let exact = true;
  const inexact = () => {
    exact = false;
    return "1";
  };

  const visit = (n: FilterNode): string => {
    if (n.kind === "field") {
      const f = field(n.segments);
      return joinAll(n.conditions.map((c) => condition(f, c)), " AND ");
    }
    return joinAll(n.children.map(visit), n.kind === "and" ? " AND " : " OR ");
  };

  const condition = (f: { value: string; type: string; jsonPath: string }, c: Condition): string => {
    const { value: v, type: t } = f;
    switch (c.op) {
      case "eq":
        return equals(v, t, c.value);
      case "ne":
        return `NOT IFNULL(${equals(v, t, c.value)}, 0)`;
      case "in":
        return oneOf(v, t, c.values);
      case "nin":
        return `NOT IFNULL(${oneOf(v, t, c.values)}, 0)`;
      case "gt": case "gte": case "lt": case "lte":
        return range(v, t, c.op, c.value);
      case "exists":
        return c.value ? `${t} IS NOT NULL` : `${t} IS NULL`;
      case "regex": {
        const sql = regex(v, t, c.pattern, c.flags);
        return sql ?? inexact();
      }
      case "elemMatch": {
        // json_each also iterates objects and scalars, hence the array check.
        const el = { value: "value", type: "type", jsonPath: f.jsonPath };
        const inner = joinAll(c.conditions.map((ic) => condition(el, ic)), " AND ");
        return `(${t} = 'array' AND EXISTS (SELECT 1 FROM json_each(doc, '${f.jsonPath}') WHERE ${inner}))`;
      }
    }
  };

  const bind = (value: SqlParam): string => {
    params.push(value);
    return "?";
  };

  const equals = (v: string, t: string, x: Scalar): string => {
    if (x === null) return `${v} IS NULL`;
    if (typeof x === "boolean") return `(${v} = ${bind(x ? 1 : 0)} AND ${t} = '${x}')`;
    if (typeof x === "number") return `(${v} = ${bind(x)} AND ${t} IN ('integer', 'real'))`;
    // Arrays/objects extract as JSON text, which only a string starting with [ or { could equal.
    return looksLikeJson(x) ? `(${v} = ${bind(x)} AND ${t} = 'text')` : `${v} = ${bind(x)}`;
  };

  const oneOf = (v: string, t: string, xs: Scalar[]): string => {
    const strings = xs.filter((x): x is string => typeof x === "string");
    const numbers = xs.filter((x): x is number => typeof x === "number");
    const parts: string[] = [];
    if (strings.length > 0) {
      const list = `${v} IN (${strings.map(bind).join(", ")})`;
      parts.push(strings.some(looksLikeJson) ? `(${list} AND ${t} = 'text')` : list);
    }
    if (numbers.length > 0) parts.push(`(${v} IN (${numbers.map(bind).join(", ")}) AND ${t} IN ('integer', 'real'))`);
    for (const b of [true, false]) if (xs.includes(b)) parts.push(equals(v, t, b));
    if (xs.includes(null)) parts.push(`${v} IS NULL`);
    return parts.length === 0 ? "0" : `(${parts.join(" OR ")})`;
  };

  const range = (v: string, t: string, op: "gt" | "gte" | "lt" | "lte", x: Scalar): string => {
    if (x === null) return op === "gte" || op === "lte" ? `${v} IS NULL` : "0";
    const sqlOp = { gt: ">", gte: ">=", lt: "<", lte: "<=" }[op];
    const types = typeof x === "string" ? "('text')" : typeof x === "number" ? "('integer', 'real')" : "('true', 'false')";
    const operand = typeof x === "boolean" ? (x ? 1 : 0) : x;
    return `(${v} ${sqlOp} ${bind(operand)} AND ${t} IN ${types})`;
  };

  const regex = (v: string, t: string, pattern: string, flags: string): string | null => {
    const literal = regexLiteral(pattern);
    if (literal === null || (literal.anchored && flags.includes("m"))) return null;
    if (!flags.includes("i")) {
      return `(${t} = 'text' AND instr(${v}, ${bind(literal.text)}) ${literal.anchored ? "= 1" : "> 0"})`;
    }
    // LIKE folds ASCII case only, the same as a JS /i regex for an ASCII pattern; anything else runs in JS.
    if (!/^[\x00-\x7f]*$/.test(literal.text)) return null;
    const like = (literal.anchored ? "" : "%") + literal.text.replace(/[\\%_]/g, "\\$&") + "%";
    return `(${t} = 'text' AND ${v} LIKE ${bind(like)} ESCAPE '\\')`;
  };

  const where = visit(node);
  return { where, params, exact };
}

/** A pattern that is a plain (escaped) literal, optionally anchored with a leading ^, as its text. */
export function regexLiteral(pattern: string): { text: string; anchored: boolean } | null {
  const anchored = pattern.startsWith("^");
  let text = "";
  for (let i = anchored ? 1 : 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === "\\") {
      const next = pattern[i + 1];
      // \d, \w, \b, \n ... are classes or escapes with a meaning: only escaped punctuation is literal.
      if (next === undefined || /[A-Za-z0-9]/.test(next)) return null;
      text += next;
      i++;
    } else if ("^$.|?*+()[]{}".includes(ch)) {
      return null;
    } else {
      text += ch;
    }
  }
  return { text, anchored };
}

export function orderBy(sort: [string[], 1 | -1][]): string {
  if (sort.length === 0) return "";
  return " ORDER BY " + sort.map(([segments, dir]) => `${field(segments).value}${dir === -1 ? " DESC" : ""}`).join(", ");
}

function joinAll(parts: string[], separator: string): string {
  if (parts.length === 0) return "1";
  return parts.length === 1 ? parts[0]! : `(${parts.join(separator)})`;
}

function looksLikeJson(x: string): boolean {
  return x.startsWith("[") || x.startsWith("{");
}
