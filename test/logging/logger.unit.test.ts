import { afterAll, describe, expect, test } from "bun:test";
import { configureLogging, createLogger, logger, withLogContext, type LogLevel } from "../../src/logging/logger.ts";

/** A logger writing into an array, as the service's writes to stdout. */
function collecting(level: LogLevel, options: { pretty?: boolean; secrets?: string[] } = {}) {
  const written: string[] = [];
  const log = createLogger({ level, pretty: options.pretty ?? false, secrets: options.secrets, sink: { write: (line: string) => written.push(line) } });
  const lines = () => written.map((line) => JSON.parse(line) as Record<string, unknown>);
  return { log, written, lines };
}

describe("the logger", () => {
  test("one JSON object per line, with the level's name, an ISO time, the fields and the message", () => {
    const { log, written, lines } = collecting("info");
    log.child({ component: "http" }).info({ reqId: "r1", status: 200 }, "request");
    expect(written).toHaveLength(1);
    expect(written[0]!.endsWith("\n")).toBe(true);
    expect(written[0]!.trimEnd().includes("\n")).toBe(false);
    const [line] = lines();
    expect(line).toMatchObject({ level: "info", component: "http", reqId: "r1", status: 200, msg: "request" });
    expect(new Date(line!.time as string).toISOString()).toBe(line!.time as string);
  });

  test("lines below the level are not written: at warn, info is hidden and warn shown", () => {
    const { log, lines } = collecting("warn");
    log.info("hidden");
    log.debug("hidden too");
    log.warn("shown");
    expect(lines().map((l) => l.msg)).toEqual(["shown"]);
  });

  test("a terminal gets readable lines, not JSON", () => {
    const { log, written } = collecting("info", { pretty: true });
    log.child({ component: "relay" }).info({ position: 42 }, "checkpoint saved");
    const text = written.join("");
    expect(() => JSON.parse(written[0]!)).toThrow();
    expect(text).toContain("INFO");
    expect(text).toContain("checkpoint saved");
    expect(text).toContain("position: 42");
  });

  test("lines logged inside withLogContext carry its fields, across awaits; a field the call gives wins", async () => {
    const { log, lines } = collecting("info");
    await withLogContext({ worker: "transcription", correlationId: "corr-1" }, async () => {
      await Bun.sleep(1);
      log.info("inside");
      log.info({ correlationId: "explicit" }, "own id");
    });
    log.info("outside");
    await withLogContext({ worker: "exports" }, async () => {
      log.info({ taskId: 1 }, "first");
      log.info("second");
    });
    const [inside, own, outside, first, second] = lines();
    expect(inside).toMatchObject({ worker: "transcription", correlationId: "corr-1" });
    expect(own).toMatchObject({ worker: "transcription", correlationId: "explicit" });
    expect(outside!.correlationId).toBeUndefined();
    // A call's own fields stay on its line.
    expect(first).toMatchObject({ worker: "exports", taskId: 1 });
    expect(second!.taskId).toBeUndefined();
  });

  test("secret fields are redacted, and secrets in messages, errors and URLs are scrubbed, in both forms", () => {
    const signingSecret = "a1b2c3d4e5f6-signing-secret";
    for (const pretty of [false, true]) {
      const { log, written } = collecting("debug", { pretty, secrets: [signingSecret] });
      log.info(
        { password: "hunter2-password", headers: { authorization: "Bearer scr_abcdefghijklmnopqrstuvwxyz012345" }, user: { token: "tok-123456" } },
        "login",
      );
      log.info({ url: "http://localhost:3000/storage/media/1/a.wav?expires=1700000000&signature=c2lnbmF0dXJl" }, "signed");
      log.error(
        { err: new Error("PUT https://s3.example/bucket/k?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA%2F2024&X-Amz-Signature=deadbeef failed") },
        `the key sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345 and ${signingSecret} and $argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA`,
      );
      const text = written.join("");
      for (const secret of [
        "hunter2-password",
        "scr_abcdefghijklmnopqrstuvwxyz012345",
        "tok-123456",
        "signature=c2lnbmF0dXJl",
        "c2lnbmF0dXJl",
        "deadbeef",
        "AKIA",
        "sk_ABCDEFGHIJKLMNOPQRSTUVWXYZ012345",
        signingSecret,
        "$argon2id",
      ]) {
        expect(text).not.toContain(secret);
      }
      expect(text).toContain("[REDACTED]");
      // What stays is what an operator needs: where, and what happened.
      expect(text).toContain("http://localhost:3000/storage/media/1/a.wav?");
      expect(text).toContain("https://s3.example/bucket/k?");
      expect(text).toContain("failed");
    }
  });
});

describe("the service's loggers", () => {
  afterAll(() => configureLogging({ level: "warn", pretty: false }));

  test("a component's logger made before start-up follows the level configured at start-up", () => {
    const early = logger("logger-test-component");
    configureLogging({ level: "warn", pretty: false });
    expect(early.isLevelEnabled("info")).toBe(false);
    configureLogging({ level: "debug", pretty: false });
    expect(early.isLevelEnabled("debug")).toBe(true);
    expect(logger("logger-test-component")).toBe(early);
  });
});
