// Log lines are written in batches (one system call for many), at once from error level up, and at exit.
import { describe, expect, test } from "bun:test";
import { BatchedOutput } from "../../src/logging/batched-output.ts";
import { createLogger } from "../../src/logging/logger.ts";

/** A destination that records each write (each would be one system call). */
const recorder = () => {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => writes.push(text) } };
};

describe("BatchedOutput", () => {
  test("given lines within the delay, then they are written together, once, after it", async () => {
    const { writes, destination } = recorder();
    const output = new BatchedOutput(destination, 10);
    output.write("a\n");
    output.write("b\n");
    expect(writes).toEqual([]);
    await Bun.sleep(30);
    expect(writes).toEqual(["a\nb\n"]);
    output.close();
  });

  test("given more than the batch's bytes, then they are written at once", () => {
    const { writes, destination } = recorder();
    const output = new BatchedOutput(destination, 10_000, 8);
    output.write("12345\n");
    output.write("67890\n");
    expect(writes).toEqual(["12345\n67890\n"]);
    output.close();
  });

  test("given lines waiting, when the process exits, then they are written (a child process's stdout)", async () => {
    const script = `import { BatchedOutput } from ${JSON.stringify(new URL("../../src/logging/batched-output.ts", import.meta.url).pathname)};
      const output = BatchedOutput.of(1); output.write("first\\n"); output.write("last\\n"); process.exit(3);`;
    const child = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "inherit" });
    expect(await new Response(child.stdout).text()).toBe("first\nlast\n");
    expect(await child.exited).toBe(3);
  });

  test("given a tool's log moved to stderr, then the process has one exit hook still, and the waiting lines reach stderr at exit", async () => {
    const script = `import { logger, logToStderr } from ${JSON.stringify(new URL("../../src/logging/logger.ts", import.meta.url).pathname)};
      const before = process.listenerCount("exit"); logToStderr(); logger("tool").info("on stderr");
      console.log(JSON.stringify({ before, after: process.listenerCount("exit") })); process.exit(0);`;
    const child = Bun.spawn(["bun", "-e", script], { stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    const { before, after } = JSON.parse(stdout) as { before: number; after: number };
    expect(after).toBe(before);
    expect(JSON.parse(stderr)).toMatchObject({ level: "info", component: "tool", msg: "on stderr" });
    expect(await child.exited).toBe(0);
  });
});

describe("the service's log", () => {
  test("given an error, then it and every line before it go out at once; info lines wait for the batch", () => {
    const lines: string[] = [];
    let flushed = 0;
    const log = createLogger({ level: "info", pretty: false, sink: { write: (line) => lines.push(line), flush: () => flushed++ } });
    log.info("request");
    expect(flushed).toBe(0);
    log.error("broken");
    expect(flushed).toBe(1);
    expect(lines.map((line) => JSON.parse(line).msg)).toEqual(["request", "broken"]);
  });
});
