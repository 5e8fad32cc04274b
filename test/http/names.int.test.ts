import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

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

describe("names hold no control characters and only well-formed Unicode", () => {
  test("task, folder and account names: 422 keyed by the field; emoji, CJK and accents are fine", async () => {
    const user = await app.register();
    for (const name of bad) {
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
