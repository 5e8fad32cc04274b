/**
 * Started as a newcomer starts it, without NODE_ENV, a server never answers with Bun's development error page
 * (stack frames, absolute paths, source lines): an unexpected throw in a route, or in the error handler itself,
 * is the spec's JSON 500 with an X-Request-Id, and the log has a line at error level with that `reqId` and the
 * stack, beside the request's own line. `npm start` sets NODE_ENV=production besides.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bunBinary, freePort, startServiceProcess, type RunningService } from "../support/service-process.ts";
import { logLinesIn } from "../support/log-lines.ts";
import { until } from "../support/eventually.ts";
import { readFileSync } from "node:fs";

/** Started with a person's environment: no NODE_ENV (the test runner sets it to `test`, and children inherit it). */
async function startWithoutNodeEnv(script: string): Promise<RunningService> {
  const saved = process.env.NODE_ENV;
  delete process.env.NODE_ENV;
  try {
    return await startServiceProcess({}, undefined, freePort(), [bunBinary, script]);
  } finally {
    if (saved !== undefined) process.env.NODE_ENV = saved;
  }
}

/** The environment a process was started with, as Linux shows it. */
const environmentOf = (pid: number) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0");

let server: RunningService;
beforeAll(async () => {
  server = await startWithoutNodeEnv("test/support/crashing-server.ts");
});
afterAll(() => server.stop());

async function expectJson500(path: string, requestId: string): Promise<void> {
  const response = await fetch(`${server.url}${path}`, { headers: { "x-request-id": requestId } });
  const text = await response.text();
  expect({ path, status: response.status, type: response.headers.get("content-type"), text }).toEqual({
    path,
    status: 500,
    type: "application/json",
    text: JSON.stringify({ message: "Internal server error." }),
  });
  expect(response.headers.get("x-request-id")).toBe(requestId);
  // Its error line, with the request's id and the stack, and its request line.
  const lines = await until(`the log lines of ${requestId}`, () => {
    const mine = logLinesIn(server.stdout()).filter((line) => line.reqId === requestId);
    return mine.some((line) => line.msg === "request") && mine.some((line) => line.level === "error") ? mine : null;
  });
  const error = lines.find((line) => line.level === "error")!;
  expect(JSON.stringify(error.err)).toContain("stack");
  expect(lines.find((line) => line.msg === "request")).toMatchObject({ status: 500, method: "GET" });
}

describe("a server started without NODE_ENV", () => {
  test("it really runs without NODE_ENV", () => {
    expect(environmentOf(server.process.pid).filter((entry) => entry.startsWith("NODE_ENV="))).toEqual([]);
  });

  test("a throw in a route is the JSON 500 with its request id and an error line", async () => {
    await expectJson500("/api/crash", "e2e-crash-1");
  });

  test("a throw inside the error handler too", async () => {
    await expectJson500("/api/crash-the-error-handler", "e2e-crash-2");
  });
});

describe("the service itself, started without NODE_ENV", () => {
  let service: RunningService;
  beforeAll(async () => {
    service = await startWithoutNodeEnv("src/main.ts");
  });
  afterAll(() => service.stop());

  test("no body answers with a page: the built-in names that once broke the error handler are JSON", async () => {
    expect(environmentOf(service.process.pid).filter((entry) => entry.startsWith("NODE_ENV="))).toEqual([]);
    const register = await fetch(`${service.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        name: "Ada",
        email: `ada-${crypto.randomUUID()}@example.com`,
        password: "correct horse battery",
        password_confirmation: "correct horse battery",
      }),
    });
    const { token } = (await register.json()) as { token: string };
    for (const [method, path] of [
      ["DELETE", "/api/tasks/bulk"],
      ["PATCH", "/api/tasks/bulk/move"],
    ] as const) {
      for (const key of ["constructor", "__proto__", "toString", "valueOf", "hasOwnProperty", "isPrototypeOf", "__defineGetter__"]) {
        const response = await fetch(`${service.url}${path}`, {
          method,
          headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
          body: `{"${key}":1}`,
        });
        const text = await response.text();
        expect({ method, path, key, type: response.headers.get("content-type") }).toEqual({ method, path, key, type: "application/json" });
        expect(text).not.toContain("<!doctype");
        expect(response.headers.get("x-request-id")).toBeTruthy();
      }
    }
  });
});

test("`npm start` runs the service with NODE_ENV=production unless one is set", async () => {
  const { scripts } = (await Bun.file(`${import.meta.dir}/../../package.json`).json()) as { scripts: { start: string } };
  // The script as npm runs it (sh), with `bun` and setup standing in: what the service would see.
  const command = scripts.start.replace("bash scripts/setup.sh", "true").replace("exec bun src/main.ts", 'exec sh -c "echo \\$NODE_ENV"');
  const { NODE_ENV: _, ...env } = process.env;
  expect(Bun.spawnSync(["sh", "-c", command], { env }).stdout.toString().trim()).toBe("production");
  expect(
    Bun.spawnSync(["sh", "-c", command], { env: { ...env, NODE_ENV: "staging" } })
      .stdout.toString()
      .trim(),
  ).toBe("staging");
});
