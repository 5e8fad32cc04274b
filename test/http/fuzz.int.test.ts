/**
 * Property-based fuzzing of every operation in the service's own OpenAPI document with fast-check:
 * bounded, seeded and so reproducible (FUZZ_SEED, FUZZ_RUNS). Whatever the path parameters, query and
 * body, the service answers below 500, and every error is in spec section 7's shape (`message`, plus
 * `errors` keyed by field for 422), or OpenAI's (`{error: {message, type}}`) on the OpenAI-compatible `/v1` routes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { createTask } from "../support/tasks.ts";

const seed = Number(process.env.FUZZ_SEED ?? 20261123);
const runs = Number(process.env.FUZZ_RUNS ?? 50);

type Operation = { method: string; path: string; parameters: { name: string; in: string }[]; bodyKeys: string[] };

let app: TestApp;
let token = "";
let operations: Operation[] = [];
let taskId = 0;
beforeAll(async () => {
  app = await startTestApp();
  const user = await app.register();
  token = user.token;
  taskId = await createTask(app, user, { name: "Fuzzed", segments: [{ start: 0, end: 1000, text: "hello" }] });
  const doc = (await (await app.request("GET", "/swagger/json")).json()) as {
    paths: Record<
      string,
      Record<
        string,
        { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } }
      >
    >;
  };
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const content = op.requestBody?.content ?? {};
      const schema = content["application/json"]?.schema ?? Object.values(content)[0]?.schema;
      operations.push({ method: method.toUpperCase(), path, parameters: op.parameters ?? [], bodyKeys: Object.keys(schema?.properties ?? {}) });
    }
  }
  // A server-sent event stream never ends, and logging out spends the token the others use.
  operations = operations.filter((o) => !o.path.endsWith("/events") && o.path !== "/api/logout");
});
afterAll(() => app.close());

const json = fc.jsonValue({ maxDepth: 3 });
const scalar = fc.oneof(fc.string({ maxLength: 40 }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.string({ unit: "binary", maxLength: 20 }));
const pathValue = fc.oneof(
  fc.constantFrom("1", "0", "-1", "999999999999999999999", "%00", "..", "Work", "pdf"),
  fc.string({ minLength: 1, maxLength: 20 }),
  fc.nat().map(String),
);

/** Header parameters (Idempotency-Key): any printable text a client could send, and the edge cases of the draft's syntax. */
const headerValue = fc.oneof(
  fc.string({ maxLength: 300 }).map((text) => text.replace(/[^\x20-\x7e]/g, "")),
  fc.constantFrom("", '""', '"unterminated', '"a\\"', "k".repeat(256), "fuzz-key"),
);

function bodyFor(op: Operation) {
  const shaped = fc.dictionary(op.bodyKeys.length > 0 ? fc.constantFrom(...op.bodyKeys) : fc.string({ maxLength: 10 }), fc.oneof(scalar, json), { maxKeys: 6 });
  return fc.oneof(
    shaped,
    json,
    fc.string({ maxLength: 50 }).map((raw) => ({ raw })),
  );
}

describe("fuzzing every operation of the OpenAPI document", () => {
  test("no answer is a 5xx, and every error has the spec's shape", async () => {
    expect(operations.length).toBeGreaterThan(35);
    const counts: string[] = [];
    for (const op of operations) {
      let sent = 0;
      await fc.assert(
        fc.asyncProperty(
          fc.array(pathValue, { minLength: 4, maxLength: 4 }),
          fc.dictionary(fc.constantFrom("page", "per_page", "status", "search", "folder", "x"), fc.string({ maxLength: 20 }), { maxKeys: 3 }),
          bodyFor(op),
          fc.boolean(),
          headerValue,
          async (values, query, body, withToken, header) => {
            let i = 0;
            const path = op.path.replace(/\{[^}]+\}/g, (name) =>
              name === "{id}" && values[3] === "1" ? String(taskId) : encodeURIComponent(values[i++ % 3]!),
            );
            const search = new URLSearchParams(query).toString();
            const hasBody = op.method !== "GET" && op.method !== "HEAD" && op.method !== "DELETE" ? true : op.bodyKeys.length > 0;
            const raw =
              typeof body === "object" && body !== null && "raw" in body && Object.keys(body).length === 1
                ? String((body as { raw: unknown }).raw)
                : JSON.stringify(body);
            const response = await app.request(op.method, `${path}${search ? `?${search}` : ""}`, {
              token: withToken ? token : undefined,
              ...(hasBody && { body: raw }),
              headers: {
                ...(hasBody && { "content-type": "application/json" }),
                ...Object.fromEntries(op.parameters.filter((p) => p.in === "header").map((p) => [p.name, header])),
              },
            });
            sent++;
            const text = await response.text();
            const where = `${op.method} ${path} ${raw.slice(0, 200)} -> ${response.status} ${text.slice(0, 200)}`;
            if (response.status >= 500) throw new Error(`5xx: ${where}`);
            if (response.status >= 400) {
              let parsed: unknown;
              try {
                parsed = JSON.parse(text);
              } catch {
                throw new Error(`error not JSON: ${where}`);
              }
              if (op.path.startsWith("/v1/")) {
                // The OpenAI-compatible routes answer in OpenAI's shape, validation failures included (400).
                const error = (parsed as { error?: { message?: unknown; type?: unknown } }).error;
                if (typeof error?.message !== "string" || typeof error.type !== "string") throw new Error(`error not in OpenAI's shape: ${where}`);
                if (response.status === 422) throw new Error(`422 on an OpenAI-compatible route: ${where}`);
                return;
              }
              const error = parsed as { message?: unknown; errors?: unknown };
              if (typeof error.message !== "string") throw new Error(`error without message: ${where}`);
              if (response.status === 422 && (typeof error.errors !== "object" || error.errors === null)) throw new Error(`422 without errors: ${where}`);
            }
          },
        ),
        { seed, numRuns: runs, endOnFailure: true },
      );
      counts.push(`${op.method} ${op.path}: ${sent}`);
    }
    console.log(`fuzzed ${operations.length} operations, ${runs} cases each (seed ${seed}), no 5xx`);
  }, 300_000);
});
