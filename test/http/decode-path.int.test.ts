/**
 * A bound that Elysia checks while decoding text (t.Integer or t.Numeric in a query, a path or a form) is refused
 * naming its field, like any other: the error Elysia throws for it lost the field's path, and answered
 * `errors: {property: [...]}` (src/http/decode-path.ts keeps it).
 */
import { expect, test } from "bun:test";
import { Elysia, t } from "elysia";
import { createHttpApp } from "../../src/http/app.ts";

const probe = new Elysia()
  .get("/api/probe", ({ query }) => query, {
    query: t.Object({
      page: t.Optional(t.Integer({ minimum: 1 })),
      per_page: t.Optional(t.Integer({ maximum: 100 })),
      ratio: t.Optional(t.Numeric({ maximum: 1 })),
    }),
  })
  .get("/api/probe/:id", ({ params }) => params, { params: t.Object({ id: t.Integer({ minimum: 1 }) }) })
  .post("/api/probe/form", ({ body }) => body, { body: t.Object({ file: t.File(), temperature: t.Optional(t.Numeric({ minimum: 0, maximum: 1 })) }) });
const app = createHttpApp([probe]);

async function errorsOf(path: string, init?: RequestInit): Promise<Record<string, string[]>> {
  const response = await app.handle(new Request(`http://localhost${path}`, init));
  expect(response.status).toBe(422);
  return ((await response.json()) as { errors: Record<string, string[]> }).errors;
}

test("a query's, a path's and a form's bounds name their field", async () => {
  expect(await errorsOf("/api/probe?page=0")).toEqual({ page: ["The page field must be at least 1."] });
  expect(await errorsOf("/api/probe?page=1&per_page=1000")).toEqual({ per_page: ["The per page field must not be greater than 100."] });
  expect(await errorsOf("/api/probe?ratio=2")).toEqual({ ratio: ["The ratio field must not be greater than 1."] });
  expect(await errorsOf("/api/probe/0")).toEqual({ id: ["The id field must be at least 1."] });
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(4)]), "a.wav");
  form.append("temperature", "5");
  expect(await errorsOf("/api/probe/form", { method: "POST", body: form })).toEqual({ temperature: ["The temperature field must not be greater than 1."] });
});

test("values in range still pass, decoded", async () => {
  const response = await app.handle(new Request("http://localhost/api/probe?page=2&per_page=100&ratio=0.5"));
  expect(await response.json()).toEqual({ page: 2, per_page: 100, ratio: 0.5 });
});
