import { preparerOf, type MemberPreparer } from "./prepared-members.ts";
/**
 * What of a JSON body its route's schema can use, as plain data a thread can take (json-body-threads.ts): the
 * member names of each object, what each array holds. Validation (Elysia's `normalize`) drops a member no
 * schema names before it checks the rest, so a thread that drops it first changes no answer, and the main
 * thread gets back the few members it will read instead of, say, a million it would have parsed for nothing.
 */
export type BodyPlan = {
  /** Keep everything here as it is (a schema that is no plain object, array or scalar). */
  any?: true;
  /** An object: the members its schema names. */
  members?: Record<string, BodyPlan>;
  /** An object that keeps its other members too (a record, or `additionalProperties` a schema or true). */
  keepOthers?: true;
  /** An array: what each item may be. */
  items?: BodyPlan;
};

const anything: BodyPlan = { any: true };
/** A scalar: an object or array here is wrong whatever it holds. */
const scalar: BodyPlan = {};

type Schema = {
  anyOf?: unknown[];
  oneOf?: unknown[];
  allOf?: unknown[];
  type?: unknown;
  properties?: Record<string, unknown>;
  additionalProperties?: unknown;
  patternProperties?: unknown;
  items?: unknown;
  const?: unknown;
};

const scalarTypes = new Set(["string", "number", "integer", "boolean", "null"]);

/** The plan of a TypeBox (JSON Schema) body schema; anything it does not know is kept whole. */
export function planOf(value: unknown): BodyPlan {
  if (typeof value !== "object" || value === null) return anything;
  const schema = value as Schema;
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(branches)) return branches.map(planOf).reduce(merge, scalar);
  if (schema.type === "object" && schema.properties && schema.patternProperties === undefined) {
    const members: Record<string, BodyPlan> = Object.create(null);
    for (const [name, member] of Object.entries(schema.properties)) members[name] = planOf(member);
    // Left out or `false` (which Elysia sets on a route's schema when it first compiles it), the others are dropped
    // by Elysia's `normalize` before the check; a schema (a record's values) or `true` keeps them.
    const dropsOthers = schema.additionalProperties === undefined || schema.additionalProperties === false;
    return dropsOthers ? { members } : { members, keepOthers: true };
  }
  if (schema.type === "array" && typeof schema.items === "object" && schema.items !== null && !Array.isArray(schema.items)) {
    return { items: planOf(schema.items) };
  }
  if ((typeof schema.type === "string" && scalarTypes.has(schema.type)) || "const" in schema) return scalar;
  return anything;
}

/** What either plan keeps (a union's branches, a nullable array). */
function merge(a: BodyPlan, b: BodyPlan): BodyPlan {
  if (a.any || b.any) return anything;
  const merged: BodyPlan = {};
  if (a.members || b.members) {
    const members: Record<string, BodyPlan> = Object.create(null);
    for (const [name, plan] of Object.entries(a.members ?? {})) members[name] = plan;
    for (const [name, plan] of Object.entries(b.members ?? {})) members[name] = Object.hasOwn(members, name) ? merge(members[name]!, plan) : plan;
    merged.members = members;
    if (a.keepOthers || b.keepOthers) merged.keepOthers = true;
  }
  if (a.items || b.items) merged.items = a.items && b.items ? merge(a.items, b.items) : (a.items ?? b.items);
  return merged;
}

/**
 * `value` with what `plan` cannot use taken out: members no schema names, and the contents of an object or
 * array where only a scalar fits (it is refused all the same, by type). Builds new containers and leaves
 * `value` as it was.
 */
export function prune(value: unknown, plan: BodyPlan): unknown {
  if (typeof value !== "object" || value === null || plan.any) return value;
  if (Array.isArray(value)) {
    if (!plan.items) return [];
    const items = plan.items;
    return value.map((item) => prune(item, items));
  }
  if (!plan.members) return {};
  // No prototype: a member named `__proto__` (refused before this, json-body.ts) could not set one anyway.
  const kept: Record<string, unknown> = Object.create(null);
  for (const [name, member] of Object.entries(value)) {
    if (Object.hasOwn(plan.members, name)) kept[name] = prune(member, plan.members[name]!);
    else if (plan.keepOthers) kept[name] = member;
  }
  return kept;
}

/**
 * Every member name the plan keeps, at any depth; null when it keeps members it does not name (a record, an
 * object that keeps its other members, a schema it does not know). A body that uses no other name has nothing
 * for `prune` to take out.
 */
export function namesOf(plan: BodyPlan): Set<string> | null {
  const names = new Set<string>();
  const visit = (at: BodyPlan): boolean => {
    if (at.any || at.keepOthers) return false;
    for (const [name, member] of Object.entries(at.members ?? {})) {
      names.add(name);
      if (!visit(member)) return false;
    }
    return at.items ? visit(at.items) : true;
  };
  return visit(plan) ? names : null;
}

/**
 * What a route's schema reads of a body: its plan, the names in it (`namesOf`), and the most bytes a valid one takes
 * (`largestBodyOf`): in any encoding, and in one that carries no file (anything but a multipart form).
 */
export type RoutePlan = {
  plan: BodyPlan;
  names: Set<string> | null;
  largestBody: number | null;
  largestFilelessBody: number | null;
  /** The member a large body has made ready off the main thread (prepared-members.ts), or null. */
  preparer: MemberPreparer | null;
};

/** A route as Elysia lists it (`app.routes`): the method, the path pattern (`/api/tasks/:id`) and the body schema. */
export type RouteBody = { method: string; path: string; hooks?: { body?: unknown } };

/**
 * The plan of the route a request reaches, or null (no such route, or no body schema: the body is kept whole).
 * Built once, on first use, from the routes as they are then; a path without parameters wins, as in Elysia's router.
 */
export function routePlans(routes: () => readonly RouteBody[]): (method: string, path: string) => RoutePlan | null {
  let table: { method: string; pattern: RegExp; params: number; found: RoutePlan }[] | null = null;
  const build = () =>
    routes()
      .filter((route) => route.hooks?.body !== undefined)
      .map((route) => ({
        method: route.method.toUpperCase(),
        pattern: new RegExp(
          `^${route.path
            .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
            .replace(/:[^/]+/g, "[^/]+")
            .replace(/\*/g, ".*")}$`,
        ),
        params: (route.path.match(/:|\*/g) ?? []).length,
        // Made once per route, and handed out as it is on every request that reaches it.
        found: {
          ...withNames(planOf(route.hooks!.body)),
          largestBody: largestBodyOf(route.hooks!.body),
          largestFilelessBody: largestBodyOf(route.hooks!.body, "fileless"),
          preparer: preparerOf(route.hooks!.body),
        },
      }))
      .sort((a, b) => a.params - b.params);
  return (method, path) => {
    table ??= build();
    return table.find((candidate) => (candidate.method === method || candidate.method === "ALL") && candidate.pattern.test(path))?.found ?? null;
  };
}

const withNames = (plan: BodyPlan) => ({ plan, names: namesOf(plan) });

/**
 * The most bytes a valid body of `schema` can take, in any encoding a client may send it in (JSON, a form), or
 * null when the schema bounds no such size (a string or array without a maximum, a file, a record, anything it
 * does not know). A character counts 12 bytes: percent-encoded UTF-8 of four bytes; a JSON `\uXXXX` pair is 12 too.
 * As `fileless` (JSON, a url-encoded form: anything but a multipart form), a file (an avatar) takes what any value in
 * its place takes before it is refused: a 5 MiB JSON name to `PUT /api/user` was read, parsed and refused in 35 ms,
 * four at a time.
 */
export function largestBodyOf(value: unknown, encoding: "any" | "fileless" = "any"): number | null {
  if (typeof value !== "object" || value === null) return null;
  const schema = value as Schema & { maxLength?: unknown; maxItems?: unknown; enum?: unknown[]; format?: unknown };
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(branches)) {
    let largest = 0;
    for (const branch of branches) {
      const size = largestBodyOf(branch, encoding);
      if (size === null) return null;
      largest = Math.max(largest, size);
    }
    return largest;
  }
  if ("const" in schema) return charBytes * (JSON.stringify(schema.const)?.length ?? 4);
  if (Array.isArray(schema.enum)) return charBytes * Math.max(4, ...schema.enum.map((option) => JSON.stringify(option)?.length ?? 4));
  switch (schema.type) {
    case "string":
      if (typeof schema.maxLength === "number") return charBytes * (schema.maxLength + 2);
      if (encoding === "fileless" && schema.format === "binary") return charBytes * scalarCharacters;
      // Elysia's t.Integer and t.Numeric take the number as text too (a form's or query's): as long as a number.
      return typeof schema.format === "string" && numberFormats.has(schema.format) ? charBytes * scalarCharacters : null;
    case "number":
    case "integer":
    case "boolean":
    case "null":
      return charBytes * scalarCharacters;
    case "array": {
      const item = typeof schema.maxItems === "number" ? largestBodyOf(schema.items, encoding) : null;
      return item === null ? null : charBytes + (item + charBytes) * (schema.maxItems as number);
    }
    case "object": {
      if (!schema.properties || schema.patternProperties !== undefined) return null;
      if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return null;
      let total = 2 * charBytes;
      for (const [name, member] of Object.entries(schema.properties)) {
        const size = largestBodyOf(member, encoding);
        if (size === null) return null;
        total += charBytes * (name.length + 3) + size;
      }
      return total;
    }
    default:
      return null;
  }
}

const charBytes = 12;
const numberFormats = new Set(["integer", "numeric"]);
/** The longest text of a JSON number (`-1.2345678901234567e-308`), true, false or null. */
const scalarCharacters = 32;
