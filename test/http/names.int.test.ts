import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { taskNameOf } from "../../src/openai-compat/service.ts";

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

/** Sends raw JSON text, so a lone surrogate travels as the escape `\ud800` a hostile client would send. */
const send = (method: string, path: string, json: string, token?: string) =>
  app.request(method, path, { token, body: json, headers: { "content-type": "application/json" } });
const errorsOf = async (response: Response) => ((await response.json()) as { errors: Record<string, string[]> }).errors;

const bad = ["nul\\u0000name", "line\\r\\nbreak", "tab\\there", "\\u001b[31mred", "del\\u007f", "c1\\u0085", "lone \\ud800 high", "lone \\udc00 low"];
/** Bidirectional embeddings, overrides and isolates: "gnp\u202e.exe" would show as "exe.png". */
const directionControls = ["gnp\\u202e.exe", "\\u202aembedded", "x\\u202by", "pop\\u202c", "ltr\\u202d", "iso\\u2066late\\u2069", "\\u2067r\\u2068f"];

describe("names hold no control characters and only well-formed Unicode", () => {
  test("task, folder and account names: 422 keyed by the field; emoji, CJK and accents are fine", async () => {
    const user = await app.register();
    for (const name of [...bad, ...directionControls]) {
      const task = await send("POST", "/api/tasks", `{"disk":"objstore","name":"${name}","path":"a.mp3","segments":[]}`, user.token);
      expect(task.status).toBe(422);
      expect(Object.keys(await errorsOf(task))).toEqual(["name"]);
      const folder = await send("POST", "/api/folders", `{"name":"${name}"}`, user.token);
      expect(folder.status).toBe(422);
      expect(Object.keys(await errorsOf(folder))).toEqual(["name"]);
      const account = await send(
        "POST",
        "/api/register",
        `{"name":"${name}","email":"x${crypto.randomUUID().slice(0, 6)}@example.com","password":"password123","password_confirmation":"password123"}`,
      );
      expect(account.status).toBe(422);
      expect(Object.keys(await errorsOf(account))).toEqual(["name"]);
    }
    const fine = await send("POST", "/api/tasks", `{"disk":"objstore","name":"Réunion 会议 🎙️ \\ud83c\\udf99","path":"a.mp3","segments":[]}`, user.token);
    expect(fine.status).toBe(201);
    expect(((await fine.json()) as { name: string }).name).toBe("Réunion 会议 🎙️ 🎙");
  });
});

describe("text-direction controls", () => {
  test("are refused in every name with a message that says why, and dropped from names the server makes of file names", async () => {
    const user = await app.register();
    const folder = await send("POST", "/api/folders", `{"name":"gnp\\u202e.exe"}`, user.token);
    expect(await errorsOf(folder)).toEqual({ name: ["The name field must not contain control characters or text-direction controls."] });
    const task = await send("POST", "/api/tasks", `{"disk":"objstore","name":"gnp\\u202e.exe","path":"a.mp3","segments":[]}`, user.token);
    expect(await errorsOf(task)).toEqual({ name: ["The name field must not contain control characters or text-direction controls."] });
    const created = await send("POST", "/api/tasks", `{"disk":"objstore","name":"Fine","path":"a.mp3","segments":[]}`, user.token);
    const { id } = (await created.json()) as { id: number };
    const renamed = await send("PATCH", `/api/tasks/${id}`, `{"name":"\\u2066evil\\u2069"}`, user.token);
    expect(renamed.status).toBe(422);
    const sign = await send("POST", "/api/uploads/sign", `{"file":"gnp\\u202e.mp3","content_type":"audio/mpeg","size":10}`, user.token);
    expect(sign.status).toBe(422);
    expect(taskNameOf("song\u202egnp.mp3")).toBe("song gnp");
  });
});
