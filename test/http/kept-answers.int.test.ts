/**
 * A task's detail and a page of tasks are kept as finished answers and each request gets a copy of one
 * (src/http/known-answers.ts): every copy must carry its own request's headers (its X-Request-Id, the rate limit
 * left after it) and nothing of another request's, while the body and the ETag stay those of the task as kept.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { createTask, waitForStatus, type User } from "../support/tasks.ts";

let app: TestApp;
let user: User;
let taskId = 0;

beforeAll(async () => {
  app = await startTestApp({ ...scriptPace, TRANSCRIPTION_WORKER: "off", RATE_LIMIT_PER_MINUTE: "100" });
  user = await app.register();
  taskId = await createTask(app, user, { name: "Kept", segments: [{ start: 0, end: 900, text: "Kept answers." }] });
  await waitForStatus(app, user, taskId, "finished");
});
afterAll(() => app.close());

describe("kept answers", () => {
  for (const [name, path] of [
    ["a task's detail", () => `/api/tasks/${taskId}`],
    ["a page of tasks", () => "/api/tasks?search=kept"],
  ] as const) {
    test(`${name}: each read carries its own request id and rate limit, and the same body and ETag`, async () => {
      const reads = [];
      for (let read = 0; read < 4; read++) {
        const response = await app.request("GET", path(), { token: user.token, headers: { "x-request-id": `kept-read-${read}` } });
        expect(response.status).toBe(200);
        reads.push({
          requestId: response.headers.get("x-request-id"),
          remaining: Number(response.headers.get("x-ratelimit-remaining")),
          etag: response.headers.get("etag"),
          vary: response.headers.get("vary"),
          type: response.headers.get("content-type"),
          body: await response.text(),
        });
      }
      expect(reads.map((r) => r.requestId)).toEqual(["kept-read-0", "kept-read-1", "kept-read-2", "kept-read-3"]);
      for (let i = 1; i < reads.length; i++) {
        expect(reads[i]!.remaining).toBe(reads[i - 1]!.remaining - 1);
        expect(reads[i]!.body).toBe(reads[0]!.body);
        expect(reads[i]!.etag).toBe(reads[0]!.etag);
        expect(reads[i]!.type).toBe("application/json;charset=utf-8");
        expect(reads[i]!.vary).toBe("Accept-Encoding");
      }
    });
  }

  test("an edit is in the next read, with its new ETag; the reads before it kept the old one", async () => {
    const before = await app.request("GET", `/api/tasks/${taskId}`, { token: user.token });
    const renamed = await app.request("PATCH", `/api/tasks/${taskId}`, { token: user.token, json: { name: "Kept, renamed" } });
    expect(renamed.status).toBe(200);
    const after = await app.request("GET", `/api/tasks/${taskId}`, { token: user.token });
    expect(((await after.json()) as { name: string }).name).toBe("Kept, renamed");
    expect(after.headers.get("etag")).not.toBe(before.headers.get("etag"));
    const again = await app.request("GET", `/api/tasks/${taskId}`, { token: user.token });
    expect(again.headers.get("etag")).toBe(after.headers.get("etag"));
  });
});
