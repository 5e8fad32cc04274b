/**
 * An unexpected throw never reaches Bun (whose answer, with NODE_ENV unset, was its development page: stack frames,
 * absolute paths and source lines of src/http/error-handler.ts). In a route it is the spec's JSON 500 through the
 * error handler; in the error handler itself (a thrown value that breaks whoever reads it) or in a hook after it,
 * the outermost layer (src/http/last-resort.ts) answers the same JSON 500, with the request's X-Request-Id, and
 * tells the request log and the metrics. test/http/last-resort.e2e.test.ts checks the log lines in a real process.
 */
import { describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import { createHttpApp } from "../../src/http/app.ts";
import type { RequestObservation } from "../../src/http/request-observer.ts";

/** A thrown value whose every use throws: `instanceof`, reading `.message`, turning it into a string. */
const unreadable = new Proxy(
  {},
  {
    get: () => {
      throw new Error("read");
    },
    getPrototypeOf: () => {
      throw new Error("instanceof");
    },
    has: () => {
      throw new Error("in");
    },
    ownKeys: () => {
      throw new Error("keys");
    },
  },
);

const observed: RequestObservation[] = [];
const failing = new Elysia()
  .get("/api/probe/throws", () => {
    throw new Error("a bug in a route");
  })
  .get("/api/probe/unreadable", () => {
    throw unreadable;
  })
  .get("/v1/probe/unreadable", () => {
    throw unreadable;
  })
  .get("/api/probe/after-handle", () => ({ ok: true }), {
    afterResponse: () => undefined,
    mapResponse: () => {
      throw unreadable;
    },
  });
const app = createHttpApp([failing], { observers: [(o) => observed.push(o)] });
const call = (path: string, headers: Record<string, string> = {}) => app.handle(new Request(`http://localhost${path}`, { headers }));

/** What every unexpected failure must look like from outside. */
async function expectJson500(response: Response, requestId: string): Promise<void> {
  expect(response.status).toBe(500);
  expect(response.headers.get("content-type")).toStartWith("application/json");
  expect(response.headers.get("x-request-id")).toBe(requestId);
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  const text = await response.text();
  expect(text).not.toContain("<");
  expect(text).not.toContain("/work/");
  expect(text).not.toContain("at ");
}

describe("an unexpected throw is the spec's JSON 500, whatever threw", () => {
  test("in a route: through the error handler", async () => {
    const response = await call("/api/probe/throws", { "x-request-id": "throws-1" });
    await expectJson500(response.clone() as Response, "throws-1");
    expect(await response.json()).toEqual({ message: "Internal server error." });
  });

  test("a value that breaks the error handler itself: the outermost layer answers, and the request is observed", async () => {
    observed.length = 0;
    const response = await call("/api/probe/unreadable", { "x-request-id": "unreadable-1" });
    await expectJson500(response.clone() as Response, "unreadable-1");
    expect(await response.json()).toEqual({ message: "Internal server error." });
    // Elysia's after-response hook does not run for it: the last resort tells the request log and the metrics.
    expect(observed).toContainEqual(expect.objectContaining({ requestId: "unreadable-1", status: 500, method: "GET" }));
  });

  test("on the OpenAI-compatible routes, in OpenAI's shape", async () => {
    const response = await call("/v1/probe/unreadable", { "x-request-id": "unreadable-2" });
    await expectJson500(response.clone() as Response, "unreadable-2");
    expect(await response.json()).toEqual({ error: { message: "Internal server error.", type: "server_error", param: null, code: null } });
  });

  test("in a hook after the handler", async () => {
    const response = await call("/api/probe/after-handle", { "x-request-id": "after-1" });
    await expectJson500(response, "after-1");
  });

  test("without a sane X-Request-Id, the answer names the id the service gave the request", async () => {
    const response = await call("/api/probe/unreadable", { "x-request-id": "<script>" });
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("the answers that went well are untouched", async () => {
    const health = await call("/api/health");
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
  });
});
