import { describe, expect, test } from "bun:test";
import { errorJson } from "../../src/http/error-handler.ts";
import { inOpenAiShape, isOpenAiPath, openAiErrorJson } from "../../src/http/openai-errors.ts";
import { failedTaskError, stillRunningError } from "../../src/openai-compat/failures.ts";

describe("OpenAI's error shape on the /v1 routes", () => {
  test("only /v1 and below", () => {
    expect([isOpenAiPath("/v1"), isOpenAiPath("/v1/models"), isOpenAiPath("/v10/x"), isOpenAiPath("/api/v1/x")]).toEqual([true, true, false, false]);
  });

  test("the type follows the status as OpenAI's SDKs expect it", async () => {
    const types = await Promise.all([400, 401, 403, 404, 413, 429, 500, 504].map(async (s) => ((await openAiErrorJson(s, "x").json()) as any).error.type));
    expect(types).toEqual([
      "invalid_request_error",
      "authentication_error",
      "permission_error",
      "not_found_error",
      "invalid_request_error",
      "rate_limit_error",
      "server_error",
      "server_error",
    ]);
  });

  test("a section 7 answer retold: 422 becomes 400 naming the field, other statuses and Retry-After are kept", async () => {
    const invalid = await inOpenAiShape(errorJson(422, { message: "The model field is required.", errors: { model: ["The model field is required."] } }));
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toEqual({ error: { message: "The model field is required.", type: "invalid_request_error", param: "model", code: null } });
    const limited = await inOpenAiShape(errorJson(429, { message: "Too many requests." }, { "retry-after": "7" }));
    expect([limited.status, limited.headers.get("retry-after"), limited.headers.get("content-type")]).toEqual([429, "7", "application/json"]);
    expect(await limited.json()).toEqual({ error: { message: "Too many requests.", type: "rate_limit_error", param: null, code: "rate_limit_exceeded" } });
  });
});

describe("a task's end, told as OpenAI would", () => {
  test("the media's fault is 400, the balance 403, anything else 500; none is retried by the SDKs", () => {
    const cases = [
      ["The media is silent: there is no speech to transcribe.", 400],
      ["No speech was recognised in the media.", 400],
      ["Not enough transcription time: the media is 1 min long and the balance has 0 s left.", 403],
      ["Transcription failed: pocketsphinx crashed", 500],
      [null, 500],
    ] as const;
    for (const [reason, status] of cases) {
      const error = failedTaskError(42, reason);
      expect({ reason, status: error.status, named: error.message.includes("Task 42") }).toEqual({ reason, status, named: true });
      expect(error.headers["x-should-retry"]).toBe("false");
    }
  });

  test("past the wait: 504 naming the task to poll", () => {
    const error = stillRunningError(7, 300);
    expect(error.status).toBe(504);
    expect(error.message).toContain("GET /api/tasks/7");
    expect(error.response().headers.get("x-task-id")).toBe("7");
  });
});
