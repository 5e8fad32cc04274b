/**
 * A refused transcription request names the refused field in OpenAI's `param`, for every field of the form:
 * `temperature=5` once answered `param: "property"` (a bound Elysia checks while decoding the form's text, whose
 * error lost the field's path: src/http/decode-path.ts).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";

let app: TestApp;
let key = "";
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off" });
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "openai params" } });
  expect(created.status).toBe(201);
  key = ((await created.json()) as { key: string }).key;
});
afterAll(() => app.close());

/** The form an SDK sends, with `changes` over it (`null` leaves a field out). */
function form(changes: Record<string, string | null>): FormData {
  const fields: Record<string, string | Blob | null> = { file: new Blob([new Uint8Array(64)], { type: "audio/wav" }), model: "whisper-1", ...changes };
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof Blob) data.append(name, value, "speech.wav");
    else if (value !== null) data.append(name, value);
  }
  return data;
}

const refusals: [field: string, value: string | null][] = [
  ["file", null],
  ["file", "not a file"],
  ["model", null],
  ["model", ""],
  ["model", "m".repeat(257)],
  ["language", "l".repeat(65)],
  ["prompt", "p".repeat(10_001)],
  ["response_format", "xml"],
  ["temperature", "5"],
  ["temperature", "-0.5"],
  ["temperature", "warm"],
  ["timestamp_granularities[]", "sentence"],
  ["timestamp_granularities", "sentence"],
];

describe("POST /v1/audio/transcriptions names the refused field in `param`", () => {
  for (const [field, value] of refusals) {
    test(`${field} = ${value === null ? "(missing)" : JSON.stringify(value.slice(0, 20))}`, async () => {
      const response = await app.request("POST", "/v1/audio/transcriptions", { token: key, body: form({ [field]: value }) });
      const body = (await response.json()) as { error: { message: string; type: string; param: string | null } };
      expect({ status: response.status, type: body.error.type, param: body.error.param }).toEqual({ status: 400, type: "invalid_request_error", param: field });
      expect(body.error.message).toContain(field.replaceAll("_", " ").replace("[]", ""));
    });
  }
});
