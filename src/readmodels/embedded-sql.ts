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
import type { Filter, Scalar } from "./port.ts";
import type { Condition, FilterNode } from "./filter.ts";
import { isIndexSegment, isPlainObject, parseFilter } from "./filter.ts";

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

function looksLikeJson(x: string): boolean {
  return x.startsWith("[") || x.startsWith("{");
}

/** The numbers json_extract also yields for booleans. */
function boolLike(x: number): boolean {
  return x === 0 || x === 1;
}

/**
 * `translate(parseFilter(filter))`, remembered per filter shape: the SQL depends only on the paths, the
 * operators, the types of the values (and the booleans, nulls, 0s and 1s themselves), never on the other
 * strings and numbers, which are all bound parameters. A shape is translated once from a stand-in filter
 * whose strings and numbers are numbered markers; the markers found among the parameters say which value
 * of the real filter goes where. Anything malformed takes the plain path (which also produces the errors).
 */
export function translateFilter(filter: Filter): Translation {
  const values: SqlParam[] = [];
  const key = shapeOf(filter, values, null);
  if (key === null) return translate(parseFilter(filter));
  let template = templates.get(key);
  if (template === undefined) {
    template = compileShape(filter);
    if (templates.size >= MAX_TEMPLATES) templates.clear();
    templates.set(key, template);
  }
  const { slots, constants } = template;
  const params = new Array<SqlParam>(slots.length);
  for (let i = 0; i < slots.length; i++) params[i] = slots[i]! >= 0 ? values[slots[i]!]! : constants[i]!;
  return { where: template.where, params, exact: true };
}

type Template = { where: string; slots: number[]; constants: SqlParam[] };

// Filters with $in lists of many lengths make many shapes; they are cheap to rebuild.
const MAX_TEMPLATES = 1024;
const templates = new Map<string, Template>();
const STRING_MARKER = "\u0000";

function compileShape(filter: Filter): Template {
  const markers = blank();
  shapeOf(filter, [], markers);
  const t = translate(parseFilter(markers as Filter));
  const slots: number[] = [];
  const constants: SqlParam[] = [];
  for (const param of t.params) {
    let slot = -1;
    if (typeof param === "string") {
      const at = param.indexOf(STRING_MARKER);
      if (at === 0 || (at === 1 && param[0] === "[")) slot = Number(param.slice(at + 1));
    } else if (typeof param === "number" && param > 0 && param < 1e-300) {
      slot = Math.round(param / Number.MIN_VALUE) - 1;
    }
    slots.push(slot);
    constants.push(slot >= 0 ? null : param);
  }
  return { where: t.where, slots, constants };
}

/**
 * The shape key of a filter (null when it is not cacheable), collecting its strings and numbers in
 * order into `values`; with `markers`, also writes the stand-in filter for the shape into it.
 */
function shapeOf(filter: unknown, values: SqlParam[], markers: Record<string, unknown> | null): string | null {
  if (!isPlainObject(filter)) return null;
  let key = "{";
  for (const path of Object.keys(filter)) {
    const value = filter[path];
    key += JSON.stringify(path) + ":";
    if (path.startsWith("$")) {
      return null;
    } else if (!isPlainObject(value)) {
      const tag = scalarShape(value, values);
      if (tag === null) return null;
      key += tag;
      if (markers !== null) markers[path] = marker(value, values.length - 1);
    } else {
      const ops: Record<string, unknown> = {};
      key += "{";
      for (const op of Object.keys(value)) {
        const operand = value[op];
        key += op + ":";
        if (op === "$lt" || op === "$lte") {
          const tag = scalarShape(operand, values);
          if (tag === null) return null;
          key += tag;
          ops[op] = marker(operand, values.length - 1);
        } else if (op === "$in") {
          if (!Array.isArray(operand)) return null;
          const list: unknown[] = [];
          key += "[";
          for (const item of operand) {
            const tag = scalarShape(item, values);
            if (tag === null) return null;
            key += tag;
            list.push(marker(item, values.length - 1));
          }
          key += "]";
          ops[op] = list;
        } else if (op === "$contains" && typeof operand === "string" && !operand.includes(STRING_MARKER)) {
          values.push(operand);
          key += "c";
          ops[op] = STRING_MARKER + (values.length - 1);
        } else {
          return null; // an error for parseFilter to report
        }
        key += ",";
      }
      key += "}";
      if (markers !== null) markers[path] = ops;
    }
    key += ",";
  }
  return key + "}";
}

/** Without a prototype, so that a field named `__proto__` is a field like any other. */
function blank(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** The type tag of a comparable value, pushing strings and numbers onto `values`; null when not comparable. */
function scalarShape(value: unknown, values: SqlParam[]): string | null {
  switch (typeof value) {
    case "string":
      values.push(value);
      return looksLikeJson(value) ? "j" : "s";
    case "number":
      if (!Number.isFinite(value)) return null;
      if (boolLike(value)) return value === 0 ? "0" : "1"; // their SQL differs (see `equals`): part of the shape
      values.push(value);
      return "n";
    case "boolean":
      return value ? "t" : "f";
    default:
      return value === null ? "z" : null;
  }
}

/** The stand-in for a value: strings and numbers become markers of their slot (of the same kind), the rest stays. */
function marker(value: unknown, slot: number): unknown {
  if (typeof value === "string") return (looksLikeJson(value) ? "[" : "") + STRING_MARKER + slot;
  if (typeof value === "number" && !boolLike(value)) return Number.MIN_VALUE * (slot + 1);
  return value;
}
