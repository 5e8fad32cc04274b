import type { Filter } from "./port.ts";
import { isPlainObject, parseFilter } from "./filter.ts";
import { boolLike, looksLikeJson, translate, type SqlParam, type Translation } from "./embedded-sql.ts";

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
      if (boolLike(value)) return value === 0 ? "0" : "1"; // their SQL differs (see `equals` in embedded-sql.ts): part of the shape
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
