import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestApp, type TestApp } from "../support/test-app.ts";
import { scriptPace } from "../support/limits.ts";
import { checkDependencies } from "../../src/health/readiness.ts";

type Ready = { status: string; message?: string; dependencies: { name: string; ok: boolean; latency_ms: number; error?: string }[] };

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ ...scriptPace });
});
afterAll(() => app.close());

const ready = async () => {
  const response = await app.request("GET", "/api/ready");
  return { status: response.status, body: (await response.json()) as Ready };
};

test("GET /api/ready is public and lists every dependency of this process with its latency", async () => {
  const { status, body } = await ready();
  expect(status).toBe(200);
  expect(body.status).toBe("ready");
  expect(body.dependencies.map((d) => d.name)).toEqual(["event store", "read models", "blobs", "bus", "projections", "ffmpeg", "speech engine (sphinx)"]);
  for (const dependency of body.dependencies) {
    expect(dependency.ok).toBe(true);
    expect(dependency.latency_ms).toBeGreaterThanOrEqual(0);
  }
});

test("a dependency that fails makes it 503 naming it, and it recovers as soon as the dependency does", async () => {
  const blobs = app.adapters.blobs;
  const head = blobs.head.bind(blobs);
  blobs.head = async () => {
    throw new Error("storage unreachable");
  };
  try {
    const { status, body } = await ready();
    expect(status).toBe(503);
    expect(body.status).toBe("not ready");
    expect(body.message).toBe("Not ready: blobs down.");
    expect(body.dependencies.find((d) => d.name === "blobs")).toMatchObject({ ok: false, error: "storage unreachable" });
    expect(body.dependencies.filter((d) => !d.ok).map((d) => d.name)).toEqual(["blobs"]);
  } finally {
    blobs.head = head;
  }
  expect((await ready()).status).toBe(200);
});

test("a dependency that hangs is down after the timeout, not a hung readiness check", async () => {
  const started = Date.now();
  const [report] = await checkDependencies([{ name: "slow", check: () => new Promise(() => {}) }], 200);
  expect(report).toMatchObject({ name: "slow", ok: false, error: "no answer within 200 ms" });
  expect(Date.now() - started).toBeLessThan(1_000);
});
