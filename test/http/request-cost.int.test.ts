/**
 * A request costs in proportion to its size, and little before authentication. A 1 MiB name sent to
 * POST /api/register used to block the event loop for ~400 ms (100 KB: 2 ms): TypeBox ran the name's pattern over
 * a value its maxLength had refused, and past ~100,000 characters JavaScriptCore runs that pattern in its
 * interpreter. The timings themselves are bench/hostile-load.bench.ts's; here only orders of magnitude.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { namePattern } from "../../src/http/names.ts";

let app: TestApp;
let token: string;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  token = (await app.register()).token;
});
afterAll(() => app.close());

type Json = Record<string, unknown>;
type Found = { where: string; schema: Json };

/** Every string schema a request can carry (bodies, query, path), as the published OpenAPI document has it. */
async function requestStrings(): Promise<Found[]> {
  const doc = (await (await app.request("GET", "/swagger/json")).json()) as Json & { paths: Record<string, Record<string, Json>> };
  const resolve = (schema: unknown): Json => {
    let at = schema as Json;
    while (typeof at?.$ref === "string")
      at = (at.$ref as string)
        .split("/")
        .slice(1)
        .reduce<Json>((o, k) => o[k] as Json, doc);
    return at;
  };
  const found: Found[] = [];
  const walk = (raw: unknown, where: string) => {
    const schema = resolve(raw);
    if (!schema || typeof schema !== "object") return;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (types.includes("string")) found.push({ where, schema });
    for (const key of ["anyOf", "oneOf", "allOf"]) for (const branch of (schema[key] as unknown[]) ?? []) walk(branch, where);
    if (schema.items) walk(schema.items, `${where}[]`);
    for (const [name, property] of Object.entries((schema.properties as Json) ?? {})) walk(property, `${where}.${name}`);
  };
  for (const [path, methods] of Object.entries(doc.paths))
    for (const [method, operation] of Object.entries(methods)) {
      const at = `${method.toUpperCase()} ${path}`;
      for (const parameter of (operation.parameters as Json[]) ?? [])
        if (parameter.in !== "header") walk(parameter.schema, `${at} ${parameter.in}:${parameter.name}`);
      for (const [type, content] of Object.entries(((operation.requestBody as Json)?.content as Record<string, Json>) ?? {}))
        walk(content.schema, `${at} ${type}`);
    }
  return found;
}

/** The least of `runs` in-process answers to the same request, in ms: the cost, with as little of the machine's noise as it gets. */
async function leastCost(method: string, path: string, body: string, runs = 5): Promise<{ ms: number; answer: Response }> {
  let least = Number.POSITIVE_INFINITY;
  let answer: Response | null = null;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    answer = await app.request(method, path, { body, token, headers: { "content-type": "application/json" } });
    await answer.clone().arrayBuffer();
    least = Math.min(least, performance.now() - started);
  }
  return { ms: least, answer: answer! };
}

/** A request declaring `bytes` of body, streamed 64 KiB at a time; `sent()` says how much of it was read. */
function declared(method: string, path: string, bytes: number, headers: Record<string, string> = {}) {
  const piece = new Uint8Array(64 * 1024).fill(0x20);
  let read = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (read >= bytes) return controller.close();
      const next = piece.subarray(0, Math.min(piece.byteLength, bytes - read));
      read += next.byteLength;
      controller.enqueue(next);
    },
  });
  const request = new Request(`${app.origin}${path}`, {
    method,
    headers: { "content-type": "application/json", "content-length": String(bytes), ...headers },
    body,
  });
  return { request, sent: () => read };
}

describe("every string has a bound, checked before anything that is not linear", () => {
  test("each string of a request body, query or path has a maxLength in the published schema (or is one of a few values, or a file)", async () => {
    const strings = await requestStrings();
    expect(strings.length).toBeGreaterThan(50);
    // A file (`contentMediaType`) is bounded by its route's body limit.
    const unbounded = strings.filter(({ schema }) => typeof schema.maxLength !== "number" && !schema.enum && !("const" in schema) && !schema.contentMediaType);
    // The avatar's path is matched against a pattern of its own (user-routes.ts); the request head is limited to ~16 KiB.
    expect(unbounded.map((s) => s.where).filter((where) => !where.startsWith("GET /avatars/"))).toEqual([]);
  });

  test("a name's pattern lets a value over maxLength through at once, for maxLength alone to refuse", async () => {
    const patterned = (await requestStrings()).filter(
      ({ schema }) => typeof schema.pattern === "string" && (schema.pattern as string).includes(namePattern.slice(1)),
    );
    expect(patterned.length).toBeGreaterThan(10);
    for (const { where, schema } of patterned) {
      const pattern = new RegExp(schema.pattern as string);
      const max = schema.maxLength as number;
      expect([where, pattern.test("\u0000".repeat(max + 1))]).toEqual([where, true]);
      expect([where, pattern.test(`${"a".repeat(max - 1)}\u0000`)]).toEqual([where, false]);
      expect([where, pattern.test("\u202e")]).toEqual([where, false]);
    }
  });
});

describe("over-long values cost in proportion to their size", () => {
  // Bodies up to what the route takes: no more than their schemas can hold (about 90 KB for register, 66 KB for
  // folders, 80 KB for PUT /api/user as JSON, which carries no avatar: body-plans.ts's largestBodyOf).
  const bounded = { small: 6 * 1024, large: 60 * 1024 };
  const registration = (fields: Json) =>
    JSON.stringify({ name: "Ada", email: "ada@example.com", password: "password123", password_confirmation: "password123", ...fields });
  const shapes: { label: string; method: string; path: string; body: (size: number) => string; field: string }[] = [
    { label: "a name to POST /api/register", method: "POST", path: "/api/register", body: (n) => registration({ name: "a".repeat(n) }), field: "name" },
    {
      label: "an email `a@a.a.a…` to POST /api/register",
      method: "POST",
      path: "/api/register",
      body: (n) => registration({ email: `a@${"a.".repeat(n / 2)}` }),
      field: "email",
    },
    {
      label: "a folder name to POST /api/folders",
      method: "POST",
      path: "/api/folders",
      body: (n) => JSON.stringify({ name: "中".repeat(n / 3) }),
      field: "name",
    },
    {
      label: "a name to PUT /api/user",
      method: "PUT",
      path: "/api/user",
      // Bounded by its JSON schema: a JSON body carries no avatar (body-plans.ts).
      body: (n) => JSON.stringify({ name: "😀".repeat(n / 4) }),
      field: "name",
    },
  ];
  for (const shape of shapes) {
    test(`${shape.label}: one 422 on the field, and ten times the size costs less than 30 times as much`, async () => {
      const small = await leastCost(shape.method, shape.path, shape.body(bounded.small));
      const large = await leastCost(shape.method, shape.path, shape.body(bounded.large));
      for (const { answer } of [small, large]) {
        expect(answer.status).toBe(422);
        const { errors } = (await answer.json()) as { errors: Record<string, string[]> };
        expect(Object.keys(errors)).toEqual([shape.field]);
        expect(errors[shape.field]!.length).toBe(1);
      }
      // About 10 (linear); it was ~250 for names and emails. The floor keeps a sub-millisecond small one from deciding.
      expect(large.ms / Math.max(small.ms, 1)).toBeLessThan(30);
    });
  }

  test("a body larger than anything its route's schema can hold is 413 by its Content-Length, before a byte is read", async () => {
    for (const shape of shapes) {
      const { request, sent } = declared(shape.method, shape.path, 1024 * 1024, { authorization: `Bearer ${token}` });
      const answer = await app.service.app.handle(request);
      expect([shape.label, answer.status]).toEqual([shape.label, 413]);
      expect(((await answer.json()) as { message: string }).message).toMatch(/takes at most \d+ bytes/);
      expect(sent()).toBeLessThanOrEqual(2 * 64 * 1024); // what the stream had queued: nothing was read from it
    }
  });
});

describe("PUT /api/user: only a multipart form carries an avatar", () => {
  test("JSON or a url-encoded form over what the schema holds is 413 unread; a multipart form gets the avatar's room", async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const type of ["application/json", "Application/JSON; charset=utf-8", "application/x-www-form-urlencoded"]) {
      const { request, sent } = declared("PUT", "/api/user", 1024 * 1024, { ...auth, "content-type": type });
      const answer = await app.service.app.handle(request);
      expect([type, answer.status]).toEqual([type, 413]);
      expect(sent()).toBeLessThanOrEqual(2 * 64 * 1024);
    }
    // A multipart boundary that happens to say "json" is still a multipart form.
    const form = declared("PUT", "/api/user", 1024 * 1024, { ...auth, "content-type": "multipart/form-data; boundary=jsonboundary" });
    expect((await app.service.app.handle(form.request)).status).not.toBe(413);
  });
});

describe("an anonymous body over the ordinary limit", () => {
  test("is answered 401 before it is read, in the shape of its route", async () => {
    for (const [method, path] of [
      ["POST", "/api/tasks"],
      ["PUT", "/api/user"],
      ["PATCH", "/api/tasks/1"],
    ]) {
      const { request, sent } = declared(method!, path!, 20_000_000);
      const answer = await app.service.app!.handle(request);
      expect([path, answer.status]).toEqual([path, 401]);
      expect(((await answer.json()) as { message: string }).message).toBe("Unauthenticated.");
      expect(sent()).toBeLessThanOrEqual(2 * 64 * 1024);
    }
    const { request } = declared("POST", "/v1/audio/transcriptions", 20_000_000);
    const openAi = await app.service.app!.handle(request);
    expect(openAi.status).toBe(401);
    expect(((await openAi.json()) as { error: { type: string } }).error.type).toBe("authentication_error");
  });

  test("to a route that takes no large body (a public one among them) is the limits' 413, not a 401", async () => {
    for (const [method, path] of [
      ["POST", "/api/register"],
      ["POST", "/api/folders"],
      ["DELETE", "/api/tasks/bulk"],
    ]) {
      const { request, sent } = declared(method!, path!, 3_000_000);
      const answer = await app.service.app!.handle(request);
      expect([path, answer.status]).toEqual([path, 413]);
      expect(sent()).toBeLessThanOrEqual(2 * 64 * 1024);
    }
  });

  test("with a credential, or within the ordinary limit, goes on to be read as before", async () => {
    const withToken = declared("POST", "/api/tasks", 2_000_000, { authorization: `Bearer ${token}` });
    const answer = await app.service.app!.handle(withToken.request);
    expect(answer.status).not.toBe(401);
    expect(withToken.sent()).toBe(2_000_000);
    const small = declared("POST", "/api/register", 1000);
    expect((await app.service.app!.handle(small.request)).status).toBe(400);
    expect(small.sent()).toBe(1000);
  });
});
