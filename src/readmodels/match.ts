/**
 * The JS evaluation of a port filter, with the same meaning as its SQL translation (embedded-sql.ts) and
 * MongoDB's: the embedded store uses it to find the documents an update or delete touches inside its
 * write transaction. test/readmodels/readmodels-match.unit.test.ts pins the two down against each other.
 */
import type { Document, Filter, Scalar } from "./port.ts";
import { getPath, parseFilter, type Condition, type FilterNode } from "./filter.ts";

export type Predicate = (doc: Document) => boolean;

export function compileFilter(filter: Filter): Predicate {
  const node = parseFilter(filter);
  return (doc) => matchesNode(doc, node);
}

export function matchesNode(doc: Document, node: FilterNode): boolean {
  return node.fields.every((field) => {
    const value = getPath(doc, field.segments);
    return field.conditions.every((condition) => matchesCondition(value, condition));
  });
}

/** `value` is undefined when the field is missing. */
export function matchesCondition(value: unknown, condition: Condition): boolean {
  switch (condition.op) {
    case "eq":
      return equals(value, condition.value);
    case "in":
      return condition.values.some((v) => equals(value, v));
    case "lt":
    case "lte":
      return below(value, condition.op, condition.value);
    case "contains":
      return typeof value === "string" && value.includes(condition.text);
    default:
      return assertNever(condition);
  }
}

/** Equality never crosses types (1 is not true, "1" is not 1); null also matches a missing field. */
function equals(value: unknown, operand: Scalar): boolean {
  if (operand === null) return value === null || value === undefined;
  return value === operand;
}

/** Bounds only hold between values of the operand's type (MongoDB's type bracketing); `$lte: null` matches null and missing. */
function below(value: unknown, op: "lt" | "lte", operand: Scalar): boolean {
  let order: number;
  if (operand === null) return op === "lte" && (value === null || value === undefined);
  if (typeof operand === "string") {
    if (typeof value !== "string") return false;
    order = compareStrings(value, operand);
  } else if (typeof operand === "number") {
    if (typeof value !== "number") return false;
    order = value - operand;
  } else {
    if (typeof value !== "boolean") return false;
    order = Number(value) - Number(operand);
  }
  return op === "lt" ? order < 0 : order <= 0;
}

/**
 * Compares by Unicode code point, i.e. the byte order of UTF-8 that both SQLite (BINARY) and MongoDB
 * (simple collation) use; JS's `<` compares UTF-16 units, which differs above U+FFFF.
 */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

// Surrogates (U+D800–DFFF) stand for code points above U+FFFF, so they must rank above U+E000–FFFF.
function codePointRank(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit + 0x2000;
  if (unit >= 0xe000) return unit - 0x800;
  return unit;
}

function assertNever(value: never): never {
  throw new Error(`unexpected ${JSON.stringify(value)}`);
}
