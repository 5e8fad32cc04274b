/**
 * $set / $unset / $inc on dotted paths, applied in JS by the embedded store (read-modify-write inside a
 * transaction), and the seeding of an upserted document from a filter's equalities, as MongoDB does.
 * The MongoDB adapter parses updates too, only to reject what the embedded store would reject.
 */
import type { Update } from "./port.ts";
import { isIndexSegment, isPlainObject, pathSegments, type FilterNode } from "./filter.ts";

export type ParsedUpdate = {
  set: [string[], unknown][];
  unset: string[][];
  inc: [string[], number][];
};

export function parseUpdate(update: Update): ParsedUpdate {
  const parsed: ParsedUpdate = { set: [], unset: [], inc: [] };
  const seen: string[] = [];
  const claim = (path: string): string[] => {
    // MongoDB rejects two operators touching the same path or a path and its parent; so do we.
    const clash = seen.find((p) => p === path || p.startsWith(path + ".") || path.startsWith(p + "."));
    if (clash !== undefined) throw new TypeError(`update paths conflict: ${clash} and ${path}`);
    if (path === "_id" || path.startsWith("_id.")) throw new TypeError("_id cannot be updated");
    seen.push(path);
    return pathSegments(path);
  };
  for (const [op, fields] of Object.entries(update)) {
    if (!isPlainObject(fields)) throw new TypeError(`${op} needs an object`);
    for (const [path, value] of Object.entries(fields)) {
      if (op === "$set") {
        if (value === undefined) throw new TypeError(`$set ${path}: undefined is not a JSON value`);
        parsed.set.push([claim(path), value]);
      } else if (op === "$unset") {
        parsed.unset.push(claim(path));
      } else if (op === "$inc") {
        if (typeof value !== "number" || !Number.isFinite(value)) throw new TypeError(`$inc ${path}: needs a finite number`);
        parsed.inc.push([claim(path), value]);
      } else {
        throw new TypeError(`unsupported update operator ${op}`);
      }
    }
  }
  if (seen.length === 0) throw new TypeError("an update needs at least one of $set, $unset, $inc with a field");
  return parsed;
}

/** Mutates `doc`. Values are deep-copied through JSON so a later edit of the caller's object leaks nowhere. */
export function applyUpdate(doc: Record<string, unknown>, update: ParsedUpdate): void {
  for (const [segments, value] of update.set) setPath(doc, segments, structuredJson(value));
  for (const [segments, delta] of update.inc) {
    const { container, key } = locate(doc, segments, true)!;
    const current = read(container, key);
    if (current === undefined) write(container, key, delta);
    else if (typeof current === "number") write(container, key, current + delta);
    else throw new TypeError(`$inc ${segments.join(".")}: the field is not a number`);
  }
  for (const segments of update.unset) {
    const target = locate(doc, segments, false);
    if (target === null) continue;
    // MongoDB keeps array positions stable: $unset of an element sets it to null.
    if (Array.isArray(target.container)) {
      if (Number(target.key) < target.container.length) target.container[Number(target.key)] = null;
    } else {
      delete target.container[target.key];
    }
  }
}

/** The document an upsert starts from: the filter's equalities, at their paths. */
export function seedFromFilter(node: FilterNode): Record<string, unknown> {
  const seed: Record<string, unknown> = {};
  for (const field of node.fields) for (const c of field.conditions) if (c.op === "eq") setPath(seed, field.segments, c.value);
  return seed;
}

export function setPath(doc: Record<string, unknown>, segments: string[], value: unknown): void {
  const { container, key } = locate(doc, segments, true)!;
  write(container, key, value);
}

type Slot = { container: Record<string, unknown> | unknown[]; key: string };

/** The parent of the last segment; with `create`, missing parents become objects (as in MongoDB). */
function locate(doc: Record<string, unknown>, segments: string[], create: boolean): Slot | null {
  let container: Record<string, unknown> | unknown[] = doc;
  for (let i = 0; i < segments.length - 1; i++) {
    const key = segments[i]!;
    let next = read(container, key);
    if (next === undefined) {
      if (!create) return null;
      next = {};
      write(container, key, next);
    }
    if (!isPlainObject(next) && !Array.isArray(next)) {
      if (!create) return null;
      throw new TypeError(`cannot create field ${segments.join(".")}: ${segments.slice(0, i + 1).join(".")} is not an object`);
    }
    container = next;
  }
  return { container, key: segments[segments.length - 1]! };
}

function read(container: Record<string, unknown> | unknown[], key: string): unknown {
  if (Array.isArray(container)) return isIndexSegment(key) ? container[Number(key)] : undefined;
  return Object.hasOwn(container, key) ? container[key] : undefined;
}

function write(container: Record<string, unknown> | unknown[], key: string, value: unknown): void {
  if (!Array.isArray(container)) {
    container[key] = value;
    return;
  }
  if (!isIndexSegment(key)) throw new TypeError(`cannot set field ${key} on an array`);
  const index = Number(key);
  while (container.length < index) container.push(null); // MongoDB pads with null
  container[index] = value;
}

function structuredJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value)) as unknown;
}
