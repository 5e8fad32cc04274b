/**
 * Body keys named like Object's own members, or `__proto__`, found by fuzzing (fuzz.int.test.ts): the error
 * handler kept its per-field messages on a plain object, so `{"constructor":1}` made
 * `errors.constructor ??= []` keep Object's constructor, and the 422 threw instead (500, or Bun's error page).
 * An object whose own `toString` is not a function made Elysia's validation error throw while it described
 * the value (500). Each is now answered like any other key the operation does not define: dropped from the body
 * (Elysia copies only the schema's fields into the handler's body), never refused, and never named in a 422, where
 * it once was only when another field failed (`{"toString":1,"ids":[1]}` was 200, `{"toString":1}` refused it).
 * `__proto__` alone is refused, anywhere in a JSON body. No key reaches a prototype.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { builtinNames, ignoredBuiltinNames } from "./fuzz-inputs.ts";

let app: TestApp;
let token = "";
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
  token = (await app.register()).token;
});
afterAll(() => app.close());

/** Sends the JSON text as it is: JSON.stringify would drop a `__proto__` key, and keeps one of two equal keys. */
async function send(method: string, path: string, text: string) {
  const response = await app.request(method, path, { token, body: text, headers: { "content-type": "application/json" } });
  return { status: response.status, body: (await response.json()) as { message: string; errors?: Record<string, string[]> } };
}

const bulkRoutes = [
  ["DELETE", "/api/tasks/bulk"],
  ["PATCH", "/api/tasks/bulk/move"],
] as const;

describe.each(bulkRoutes)("%s %s", (method, path) => {
  const valid = method === "DELETE" ? '"ids":[999999]' : '"ids":[999999],"folder":"Uncategorized"';
  test.each(ignoredBuiltinNames)("a field named %s is dropped like any unknown one: never refused, never named", async (name) => {
    const alone = await send(method, path, `{${JSON.stringify(name)}:1}`);
    expect(alone.status).toBe(422);
    const required = method === "DELETE" ? ["ids"] : ["ids", "folder"];
    expect(alone.body.errors).toEqual(Object.fromEntries(required.map((field) => [field, [`The ${field} field is required.`]])));
    const beside = await send(method, path, `{${JSON.stringify(name)}:{"x":1},${valid}}`);
    const unknown = await send(method, path, `{"zz_unknown":{"x":1},${valid}}`);
    expect(beside).toEqual(unknown);
    expect(beside.status).toBe(200);
  });

  test.each([
    ['{"__proto__":{"ids":[1]}}', "__proto__"],
    ['{"ids":[1],"folder":"Work","__proto__":{"x":1}}', "__proto__"],
    ['{"__proto__":{"__proto__":{"x":1}}}', "__proto__"],
    ['{"a":{"__proto__":{"isAdmin":true}}}', "a.__proto__"],
    // The same key, escaped: JSON.parse reads it as `__proto__` too.
    ['{"\\u005f_proto__":{"ids":[1]}}', "__proto__"],
  ])("%s is 422 on the __proto__ key, which never becomes the body's prototype", async (text, field) => {
    const { status, body } = await send(method, path, text);
    expect(status).toBe(422);
    expect(body.errors![field]).toEqual([`The ${field} field is not allowed.`]);
  });

  test("a key given twice counts once, the last (as JSON.parse reads it)", async () => {
    const { status, body } = await send(method, path, '{"ids":[1],"folder":"Work","ids":[0]}');
    expect(status).toBe(422);
    expect(body.errors).toEqual({ "ids.0": ["The ids.0 field must be at least 1."] });
  });
});

test("a value whose own toString is no function is refused like any other object, not a 500", async () => {
  for (const folder of ['{"toString":1}', '[{"toString":{}}]', '{"\\u0074oString":1,"valueOf":1}']) {
    const { status, body } = await send("PATCH", "/api/tasks/bulk/move", `{"ids":[1],"folder":${folder}}`);
    expect(status).toBe(422);
    expect(body.errors).toEqual({ folder: ["The folder field must be a string."] });
  }
});

test("a form field named like Object's members is dropped too (Elysia's form objects have no prototype)", async () => {
  for (const [method, path] of bulkRoutes) {
    const response = await app.request(method, path, {
      token,
      body: "constructor=1&__proto__=a&__proto__=b",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(422);
    const { errors } = (await response.json()) as { errors: Record<string, string[]> };
    expect(Object.keys(errors)).toEqual(method === "DELETE" ? ["ids"] : ["ids", "folder"]);
  }
});

test("no field or parameter of any operation is named like Object's members, so reading one never finds an inherited one", async () => {
  const document = (await (await app.request("GET", "/swagger/json")).json()) as { paths: object; components: object };
  const named: string[] = [];
  // Every `properties` object and parameter `name` of the document: the fields requests and answers carry.
  const walk = (value: unknown): void => {
    if (typeof value !== "object" || value === null) return;
    for (const [key, inner] of Object.entries(value)) {
      if (key === "properties" && typeof inner === "object" && inner !== null) named.push(...Object.keys(inner));
      if (key === "name" && typeof inner === "string" && "in" in value) named.push(inner);
      walk(inner);
    }
  };
  walk(document);
  expect(named.length).toBeGreaterThan(100);
  expect(named.filter((name) => builtinNames.includes(name) || name in Object.prototype)).toEqual([]);
});
