/**
 * `flatLine` writes the line pino would, byte for byte but for the time: the request log uses it for one line per
 * request, and a collector, jq or pino-pretty must not tell the two apart. Where its line would differ (a log context,
 * a secret-named field) it hands the line to pino.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createLogger, flatLine, withLogContext, type FlatFields } from "../../src/logging/logger.ts";

const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');

function loggerAt(level: "info" | "debug", secrets: string[] = []) {
  const lines: string[] = [];
  const log = createLogger({ level, pretty: false, secrets, sink: { write: (line: string) => lines.push(line) } });
  return { log, lines };
}

/** The line `flatLine` writes and the one pino writes for the same call. */
function bothLines(fields: FlatFields, msg = "request", level: "info" | "debug" = "info", secrets: string[] = []): [string, string] {
  const { log, lines } = loggerAt("debug", secrets);
  flatLine(log, level, fields, msg);
  log[level](fields, msg);
  expect(lines).toHaveLength(2);
  return [withoutTime(lines[0]!), withoutTime(lines[1]!)];
}

describe("flat log lines", () => {
  test("the request line is pino's line, byte for byte but for the time, and its time is an ISO instant", () => {
    const fields = { reqId: "9f1c", method: "GET", route: "/api/tasks/:id", status: 200, durationMs: 1.3, userId: 7 };
    const [flat, pinos] = bothLines(fields);
    expect(flat).toBe(pinos);
    expect(flat.endsWith("}\n")).toBe(true);
    const { log, lines } = loggerAt("info");
    flatLine(log, "info", fields, "request");
    expect(new Date(JSON.parse(lines[0]!).time).toISOString()).toBe(JSON.parse(lines[0]!).time);
  });

  test("hostile values are escaped as pino escapes them: quotes, control characters, lone surrogates, JSON in a string", () => {
    for (const value of ['a"b\\c', "line\nbreak\u0000\u001f", "\ud800 lone", '{"level":"error"}', "ünïcødé 🎙", ""]) {
      const [flat, pinos] = bothLines({ reqId: value, route: value, userId: null, ok: true });
      expect(flat).toBe(pinos);
      expect(JSON.parse(flat).reqId).toBe(value);
    }
    const [flat, pinos] = bothLines({}, 'a "message"');
    expect(flat).toBe(pinos);
  });

  test("a line under the logger's level is not written", () => {
    const { log, lines } = loggerAt("info");
    flatLine(log, "debug", { route: "/api/health" }, "request");
    expect(lines).toEqual([]);
  });

  test("inside a log context, and with a field named like a secret, the line is pino's own: context added, secret blanked", () => {
    const { log, lines } = loggerAt("info");
    withLogContext({ worker: "summaries" }, () => flatLine(log, "info", { route: "/x" }, "request"));
    flatLine(log, "info", { password: "hunter2", route: "/y" }, "request");
    expect(lines.map((line) => JSON.parse(line))).toEqual([
      expect.objectContaining({ worker: "summaries", route: "/x", msg: "request" }),
      expect.objectContaining({ password: "[REDACTED]", route: "/y" }),
    ]);
    expect(lines.join("")).not.toContain("hunter2");
  });

  test("a component's logger (the service's own, on stdout) writes the line its pino child would, component included", async () => {
    const script = [
      'import { configureLogging, flatLine, logger } from "./src/logging/logger.ts";',
      'configureLogging({ level: "info", pretty: false });',
      'const log = logger("http");',
      'const fields = { reqId: "r-1", method: "GET", route: "/api/user", status: 200, durationMs: 0.4, userId: null };',
      'flatLine(log, "info", fields, "request");',
      'log.info(fields, "request");',
    ].join("\n");
    const child = Bun.spawn([process.execPath, "-e", script], { cwd: `${import.meta.dir}/../..`, stdout: "pipe", stderr: "pipe" });
    const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    expect(code).toBe(0);
    const lines = out.split("\n").filter(Boolean).map(withoutTime);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(lines[1]!);
    expect(JSON.parse(lines[0]!)).toMatchObject({ component: "http", pid: child.pid, route: "/api/user", msg: "request" });
  });

  // A line of plain values (letters, digits, `.:/{}-`) is built by hand and skips the scrubbing patterns, which cannot
  // match it; anything else takes the general way. Either way the line must be the one pino writes, scrubbed alike.
  const secret = "s3cr3t-Value.9";
  const plainish = fc.stringMatching(/^[A-Za-z0-9.:/{}_?&$ -]{0,40}$/);

  test("a configured secret inside a plain value is blanked, as on pino's line", () => {
    for (const reqId of [secret, `x-${secret}-y`, "sk_abcdefghijklmnopqrstuvwxyz", "http://host/a?token=abc", "Bearer abc.def"]) {
      const [flat, pinos] = bothLines({ reqId, method: "GET", route: "/api/tasks/:id", status: 200 }, "request", "info", [secret]);
      expect(flat).toBe(pinos);
      expect(flat).not.toContain(secret);
    }
    const [flat] = bothLines({ reqId: "sk_abcdefghijklmnopqrstuvwxyz" });
    expect(JSON.parse(flat).reqId).toBe("sk_[REDACTED]");
  });

  test("property: for any values near the plain ones, the flat line is pino's line, scrubbed alike", () => {
    fc.assert(
      fc.property(plainish, plainish, fc.oneof(fc.integer(), fc.double(), fc.constant(null), fc.boolean()), (reqId, route, value) => {
        const [flat, pinos] = bothLines({ reqId, route, value, secretish: `${reqId}${secret}` }, "request", "info", [secret]);
        expect(flat).toBe(pinos);
        expect(flat).not.toContain(secret);
      }),
      { numRuns: 500 },
    );
  });
});
