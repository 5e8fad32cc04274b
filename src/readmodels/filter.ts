/**
 * Parses a port `Filter` (see port.ts) into the list of field conditions that the SQL translator, the JS
 * matcher and the MongoDB adapter all consume, so they can never disagree about what is supported.
 * Anything outside the port throws a TypeError here — on every adapter, so a projection that runs
 * embedded also runs on MongoDB.
 */
import type { Filter, FindOptions, Scalar, Sort } from "./port.ts";

export type { Scalar };

/** One field's conditions as the adapters read them: the port's operators, parsed and checked. */
export type Condition = { op: "eq" | "lt" | "lte"; value: Scalar } | { op: "in"; values: Scalar[] } | { op: "contains"; text: string };

export type FieldNode = { path: string; segments: string[]; conditions: Condition[] };

/** A filter is the conjunction of its fields' conditions. */
export type FilterNode = { fields: FieldNode[] };

// Paths are spliced into SQL (as JSON path literals) and into index names, so only this shape is allowed.
const PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)*$/;
const DIGITS = /^[0-9]+$/;

/** Validates a dotted path and splits it; an all-digit segment addresses an array element. */
export function pathSegments(path: string): string[] {
  if (!PATH.test(path)) throw new TypeError(`unsupported field path: ${JSON.stringify(path)}`);
  return path.split(".");
}

export function isIndexSegment(segment: string): boolean {
  return DIGITS.test(segment);
}

/** The value at a path, or undefined when missing. Digit segments index arrays only (as in SQLite's `$.a[0]`). */
export function getPath(doc: unknown, segments: readonly string[]): unknown {
  let current: unknown = doc;
  for (const segment of segments) {
    if (Array.isArray(current)) {
      if (!isIndexSegment(segment)) return undefined;
      current = current[Number(segment)];
    } else if (isPlainObject(current)) {
      if (isIndexSegment(segment)) return undefined;
      current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    } else {
      return undefined;
    }
  }
  return current;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function parseFilter(filter: Filter): FilterNode {
  if (!isPlainObject(filter)) throw new TypeError("a filter must be an object");
  const fields: FieldNode[] = [];
  for (const [path, value] of Object.entries(filter)) {
    if (path.startsWith("$")) throw new TypeError(`unsupported top-level operator ${path}`);
    fields.push({ path, segments: pathSegments(path), conditions: parseConditions(path, value) });
  }
  return { fields };
}

function parseConditions(path: string, value: unknown): Condition[] {
  if (!isPlainObject(value)) return [{ op: "eq", value: scalar(path, value) }];
  const keys = Object.keys(value);
  if (keys.length === 0 || keys.some((k) => !k.startsWith("$"))) {
    throw new TypeError(`${path}: equality with an object is not supported; use operators`);
  }
  const conditions: Condition[] = [];
  for (const [op, operand] of Object.entries(value)) {
    switch (op) {
      case "$lt":
      case "$lte":
        conditions.push({ op: op === "$lt" ? "lt" : "lte", value: scalar(path, operand) });
        break;
      case "$in":
        if (!Array.isArray(operand)) throw new TypeError(`${path}: $in needs an array`);
        conditions.push({ op: "in", values: operand.map((v) => scalar(path, v)) });
        break;
      case "$contains":
        if (typeof operand !== "string") throw new TypeError(`${path}: $contains needs a string`);
        conditions.push({ op: "contains", text: operand });
        break;
      default:
        throw new TypeError(`${path}: unsupported operator ${op} (the port has $in, $lt, $lte and $contains)`);
    }
  }
  return conditions;
}

function scalar(path: string, value: unknown): Scalar {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number" && Number.isFinite(value)) return value;
  throw new TypeError(`${path}: only strings, finite numbers, booleans and null can be compared`);
}

/**
 * The `_id` of a filter that is exactly `{ _id: "<string>" }`, the commonest shape (lookups by key,
 * counters), which skips parsing and translating; null for any other filter.
 */
export function idOnly(filter: Filter): string | null {
  let id: unknown = null;
  let keys = 0;
  for (const key in filter) {
    if (++keys > 1 || key !== "_id") return null;
    id = filter[key];
  }
  return typeof id === "string" && Object.getPrototypeOf(filter) === Object.prototype ? id : null;
}

/** Validates sort/skip/limit; `limit: 0` means no limit, as in MongoDB. */
export function parseFindOptions(options: FindOptions = {}): { sort: [string[], 1 | -1][]; skip: number; limit: number } {
  const { skip = 0, limit = 0 } = options;
  if (!Number.isInteger(skip) || skip < 0) throw new TypeError("skip must be a non-negative integer");
  if (!Number.isInteger(limit) || limit < 0) throw new TypeError("limit must be a non-negative integer");
  return { sort: parseSort(options.sort ?? {}), skip, limit };
}

/** An index's name, as MongoDB names one after its keys (`userId_1_id_-1`); the keys are checked as a sort. */
export function indexName(keys: Sort): string {
  parseSort(keys);
  return Object.entries(keys)
    .map(([path, direction]) => `${path}_${direction}`)
    .join("_");
}

export function parseSort(sort: Sort): [string[], 1 | -1][] {
  return Object.entries(sort).map(([path, direction]) => {
    if (direction !== 1 && direction !== -1) throw new TypeError(`${path}: sort direction must be 1 or -1`);
    return [pathSegments(path), direction];
  });
}
