import { describe, expect, test } from "bun:test";
import { createLogger } from "../../src/logging/logger.ts";
import { requestLog } from "../../src/http/request-log.ts";

function logAt(level: "info" | "debug") {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ level, pretty: false, sink: { write: (line: string) => lines.push(JSON.parse(line)) } });
  return { observe: requestLog(log), lines };
}

const observation = { requestId: "req-1", method: "GET", route: "/api/tasks/:id", status: 200, durationSeconds: 0.01234, userId: 7 };

describe("the request log", () => {
  test("one line per request: reqId, method, route template, status, durationMs and userId", () => {
    const { observe, lines } = logAt("info");
    observe(observation);
    expect(lines).toEqual([
      expect.objectContaining({
        level: "info",
        msg: "request",
        reqId: "req-1",
        method: "GET",
        route: "/api/tasks/:id",
        status: 200,
        durationMs: 12.3,
        userId: 7,
      }),
    ]);
  });

  test("probes and scrapes (health, readiness, metrics) are at debug, so they do not fill the log at info", () => {
    const atInfo = logAt("info");
    const atDebug = logAt("debug");
    for (const route of ["/api/health", "/api/ready", "/metrics"]) {
      atInfo.observe({ ...observation, route, userId: null });
      atDebug.observe({ ...observation, route, userId: null });
    }
    expect(atInfo.lines).toEqual([]);
    expect(atDebug.lines.map((l) => l.route)).toEqual(["/api/health", "/api/ready", "/metrics"]);
  });
});
