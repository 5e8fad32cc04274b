/**
 * Body keys named like Object's own members, or `__proto__`, found by fuzzing (fuzz.int.test.ts): the error
 * handler kept its per-field messages on a plain object, so `{"constructor":1}` made
 * `errors.constructor ??= []` keep Object's constructor, and the 422 threw instead (500, or Bun's error page).
 * An object whose own `toString` is not a function made Elysia's validation error throw while it described
 * the value (500). Each is now a 422 naming the field, and no key reaches a prototype.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

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
  test.each(["constructor", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf", "__defineGetter__", "prototype"])(
    "a field named %s is 422, with the field in errors",
    async (name) => {
      const { status, body } = await send(method, path, `{${JSON.stringify(name)}:1}`);
      expect(status).toBe(422);
      expect(Object.hasOwn(body.errors!, name)).toBe(true);
      expect(body.errors![name]).toEqual([expect.stringContaining("not allowed")]);
      expect(body.errors!.ids).toEqual(["The ids field is required."]);
    },
  );

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

test("a form field named like Object's members is 422 too (the same error handler)", async () => {
  for (const [method, path] of bulkRoutes) {
    const response = await app.request(method, path, {
      token,
      body: "constructor=1&__proto__=a&__proto__=b",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as { errors: Record<string, string[]> };
    expect(Object.hasOwn(body.errors, "constructor")).toBe(true);
    expect(Object.hasOwn(body.errors, "__proto__")).toBe(true);
  }
});
