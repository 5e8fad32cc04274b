import { describe, expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { createHttpApp } from "../../src/http/app.ts";
import { ConflictError, NotFoundError, TooManyRequestsError, ValidationFailedError } from "../../src/core/errors.ts";

// A feature plugin that only exists to exercise the skeleton's validation and error mapping.
const probe = new Elysia()
  .post("/api/probe", ({ body }) => body, {
    body: t.Object({ email: t.String({ maxLength: 10 }), count: t.Integer({ minimum: 0 }), ids: t.Array(t.Integer(), { minItems: 1 }) }),
  })
  .get("/api/probe/:kind", ({ params }) => {
    if (params.kind === "missing") throw new NotFoundError("Task not found.");
    if (params.kind === "conflict") throw new ConflictError("Already done.");
    if (params.kind === "busy") throw new TooManyRequestsError("Too many requests.", 42);
    if (params.kind === "taken") throw new ValidationFailedError({ email: ["The email has already been taken."] });
    throw new Error("boom");
  });

const app = createHttpApp([probe]);
const call = (path: string, init?: RequestInit) => app.handle(new Request(`http://localhost${path}`, init));
const postJson = (path: string, body: string) => call(path, { method: "POST", body, headers: { "content-type": "application/json" } });

describe("HTTP skeleton", () => {
  test("GET /api/health is public and says ok", async () => {
    const response = await call("/api/health");
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
  });

  test("an unknown route is a JSON 404", async () => {
    const response = await call("/api/nothing-here", { method: "DELETE" });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(await response.json()).toEqual({ message: "Not found." });
  });

  test("a JSON body is read whatever the case of its media type, and with parameters", async () => {
    for (const type of ["application/json", "Application/JSON", "APPLICATION/JSON; charset=UTF-8"]) {
      const response = await call("/api/probe", { method: "POST", body: '{"email":"a@b.cc","count":1,"ids":[1]}', headers: { "content-type": type } });
      expect([type, response.status, await response.json()]).toEqual([type, 200, { email: "a@b.cc", count: 1, ids: [1] }]);
    }
  });

  test("malformed JSON is a 400 with a message, never a 500", async () => {
    for (const body of ["{not json", '{"email": ', "\u0000"]) {
      const response = await postJson("/api/probe", body);
      expect([400, 422]).toContain(response.status);
      expect(typeof ((await response.json()) as { message: unknown }).message).toBe("string");
    }
  });

  test("validation failures are 422 with errors keyed by field", async () => {
    const response = await postJson("/api/probe", JSON.stringify({ email: "x".repeat(11), count: -1, ids: [] }));
    expect(response.status).toBe(422);
    const body = (await response.json()) as { message: string; errors: Record<string, string[]> };
    expect(Object.keys(body.errors).sort()).toEqual(["count", "email", "ids"]);
    expect(body.errors.email).toEqual(["The email field must not be greater than 10 characters."]);
    expect(body.errors.count).toEqual(["The count field must be at least 0."]);
    expect(body.message).toStartWith("The email field");
  });

  test("a missing field is reported once, as required", async () => {
    const body = (await (await postJson("/api/probe", "{}")).json()) as { errors: Record<string, string[]> };
    expect(body.errors).toEqual({
      email: ["The email field is required."],
      count: ["The count field is required."],
      ids: ["The ids field is required."],
    });
  });

  test("wrong types inside arrays name the element", async () => {
    const body = (await (await postJson("/api/probe", JSON.stringify({ email: "a", count: 1, ids: ["x"] }))).json()) as { errors: Record<string, string[]> };
    expect(body.errors).toEqual({ "ids.0": ["The ids.0 field must be an integer."] });
  });

  test("domain errors carry their status; unexpected ones are a JSON 500", async () => {
    expect((await call("/api/probe/missing")).status).toBe(404);
    expect(await (await call("/api/probe/missing")).json()).toEqual({ message: "Task not found." });
    expect((await call("/api/probe/conflict")).status).toBe(409);
    const busy = await call("/api/probe/busy");
    expect(busy.status).toBe(429);
    expect(busy.headers.get("retry-after")).toBe("42");
    const taken = await call("/api/probe/taken");
    expect(taken.status).toBe(422);
    expect(await taken.json()).toEqual({ message: "The email has already been taken.", errors: { email: ["The email has already been taken."] } });
    const broken = await call("/api/probe/crash");
    expect(broken.status).toBe(500);
    expect(await broken.json()).toEqual({ message: "Internal server error." });
  });

  test("OpenAPI JSON at /swagger/json documents the routes from the same schemas", async () => {
    const response = await call("/swagger/json");
    expect(response.status).toBe(200);
    const doc = (await response.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> };
    expect(doc.openapi).toStartWith("3.");
    expect(doc.paths["/api/health"]?.get).toBeDefined();
    expect(JSON.stringify(doc.paths["/api/probe"]?.post?.requestBody)).toContain("maxLength");
    expect((await call("/swagger")).status).toBe(200);
  });
});
