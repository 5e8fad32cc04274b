/**
 * The JS evaluation of a port filter, with MongoDB's semantics for the supported subset. The embedded
 * store uses it where a condition cannot be expressed in SQL (a real regex); it must agree with the SQL
 * translation (embedded-sql.ts) on every document, which test/readmodels/readmodels-match.unit.test.ts pins down.
 */
import type { Document, Filter } from "./port.ts";
import { getPath, parseFilter, type Condition, type FilterNode, type Scalar } from "./filter.ts";

export type Predicate = (doc: Document) => boolean;

export function compileFilter(filter: Filter): Predicate {
  const node = parseFilter(filter);
  return (doc) => matchesNode(doc, node);
}

export function matchesNode(doc: Document, node: FilterNode): boolean {
  switch (node.kind) {
    case "and":
      return node.children.every((child) => matchesNode(doc, child));
    case "or":
      return node.children.some((child) => matchesNode(doc, child));
    case "field": {
      const value = getPath(doc, node.segments);
      return node.conditions.every((condition) => matchesCondition(value, condition));
    }
    default:
      return assertNever(node);
  }
}

/** `value` is undefined when the field is missing. */
export function matchesCondition(value: unknown, condition: Condition): boolean {
  switch (condition.op) {
    case "eq":
      return equals(value, condition.value);
    case "ne":
      return !equals(value, condition.value);
    case "gt":
    case "gte":
    case "lt":
    case "lte":
      return compareWith(value, condition.op, condition.value);
    case "in":
      return condition.values.some((v) => equals(value, v));
    case "nin":
      return !condition.values.some((v) => equals(value, v));
    case "exists":
      return (value !== undefined) === condition.value;
    case "regex":
      return typeof value === "string" && condition.regex.test(value);
    case "elemMatch":
      return Array.isArray(value) && value.some((el) => condition.conditions.every((c) => matchesCondition(el, c)));
    default:
      return assertNever(condition);
  }
}

/** Equality never crosses types (1 is not true, "1" is not 1); null also matches a missing field. */
function equals(value: unknown, operand: Scalar): boolean {
  if (operand === null) return value === null || value === undefined;
  return value === operand;
}

/**
 * Range comparisons only hold between values of the operand's type (MongoDB's type bracketing);
 * `$gte: null` / `$lte: null` match null and missing, `$gt: null` / `$lt: null` match nothing.
 */
function compareWith(value: unknown, op: "gt" | "gte" | "lt" | "lte", operand: Scalar): boolean {
  let order: number;
  if (operand === null) {
    return (op === "gte" || op === "lte") && (value === null || value === undefined);
  } else if (typeof operand === "string") {
    if (typeof value !== "string") return false;
    order = compareStrings(value, operand);
  } else if (typeof operand === "number") {
    if (typeof value !== "number") return false;
    order = value - operand;
  } else {
    if (typeof value !== "boolean") return false;
    order = Number(value) - Number(operand);
  }
  switch (op) {
    case "gt":
      return order > 0;
    case "gte":
      return order >= 0;
    case "lt":
      return order < 0;
    case "lte":
      return order <= 0;
  }
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
