// Log batches written by a thread of their own (src/logging/off-thread-writes.ts), in child processes whose stdout
// this test reads: every batch arrives once and in order whatever the thread has got to, the event loop goes on while
// nobody reads the pipe, and what waits for the thread stays within its bound.
import { describe, expect, test } from "bun:test";
import { bunBinary } from "../support/service-process.ts";

const writesModule = JSON.stringify(new URL("../../src/logging/off-thread-writes.ts", import.meta.url).pathname);
const loggerModule = JSON.stringify(new URL("../../src/logging/logger.ts", import.meta.url).pathname);

const run = (script: string) => Bun.spawn([bunBinary, "-e", script], { stdout: "pipe", stderr: "pipe" });

/**
 * The script's stdout goes to a pipe that nobody reads for `ms` (Bun reads a child's pipe as soon as it is made, so a
 * shell's pipe stands between): a collector that has stopped reading.
 */
const runUnread = (script: string, ms: number) =>
  Bun.spawn(["sh", "-c", `"$BUN" -e "$SCRIPT" | { sleep ${ms / 1000}; cat; }`], {
    env: { ...process.env, BUN: bunBinary, SCRIPT: script },
    stdout: "pipe",
    stderr: "pipe",
  });

const numbered = (count: number) => Array.from({ length: count }, (_, i) => `${i}`);

describe("log batches written off the event loop's thread", () => {
  test("given batches handed over while the thread writes, with writes here in between, when what waits is written at exit, then each is on stdout once, in order", async () => {
    const child = run(`import { OffThreadWrites } from ${writesModule};
      const writes = new OffThreadWrites(1);
      for (let i = 0; i < 20000; i++) {
        writes.write(i + "\\n");
        if (i % 997 === 0) writes.writeNow();
        if (i % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 0));
      }
      for (let i = 20000; i < 20100; i++) writes.write(i + "\\n");
      await new Promise((resolve) => setTimeout(resolve, 300));
      // The thread wrote what came last by itself.
      console.error(JSON.stringify({ waiting: writes.waitingChars }));
      writes.writeNow(); // as the exit hook does (batched-output.ts)
      process.exit(0);`);
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect(JSON.parse(stderr)).toEqual({ waiting: 0 });
    expect(stdout.trimEnd().split("\n")).toEqual(numbered(20100));
    expect(await child.exited).toBe(0);
  });

  test("given nobody reads the pipe, then the event loop goes on, and once it is read every line arrives", async () => {
    // 3 MB of lines: far more than a pipe holds (64 KiB). Written on the event loop's thread, the first write past
    // that would block it until the pipe is read, 2 s later, and the timer below would fire only then. Batches go on
    // being handed over while the reader wakes and the thread catches up.
    const child = runUnread(
      `import { OffThreadWrites } from ${writesModule};
      const writes = new OffThreadWrites(1);
      const batch = (i) => (i + ":" + "x".repeat(99) + "\\n").repeat(10);
      const started = performance.now();
      let i = 0;
      for (; i < 3000; i++) writes.write(batch(i));
      await new Promise((resolve) => setTimeout(resolve, 20));
      console.error(JSON.stringify({ timerAfterMs: performance.now() - started }));
      while (performance.now() - started < 3_000) {
        for (let j = 0; j < 2; j++, i++) writes.write(batch(i));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      writes.writeNow();
      console.error(JSON.stringify({ batches: i, waiting: writes.waitingChars }));
      process.exit(0);`,
      2_000,
    );
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    const [timer, total] = stderr
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(timer.timerAfterMs).toBeLessThan(1_000);
    const lines = stdout.trimEnd().split("\n");
    // Counted right through the queue's compactions (the thread catches up while batches keep coming).
    expect(total.waiting).toBe(0);
    expect(lines).toHaveLength(total.batches * 10);
    expect(lines.filter((_, i) => i % 10 === 0).map((line) => line.split(":")[0])).toEqual(numbered(total.batches));
    expect(await child.exited).toBe(0);
  });

  test("given more than the bound waits for a thread that cannot write, then the writer writes itself: what waits stays within the bound", async () => {
    // Not read for a while: the thread is stuck on the full pipe, and the batches pile up to the bound.
    const child = runUnread(
      `import { OffThreadWrites } from ${writesModule};
      import pino from "pino";
      const stdout = pino.destination({ dest: 1, sync: true });
      let writtenHere = 0;
      const writes = new OffThreadWrites(1, { write: (text) => (writtenHere++, stdout.write(text)) }, 100_000);
      let most = 0;
      for (let i = 0; i < 100; i++) {
        writes.write(i + ":" + "y".repeat(9_990) + "\\n");
        most = Math.max(most, writes.waitingChars);
      }
      const beforeLastWrite = writtenHere;
      writes.writeNow();
      console.error(JSON.stringify({ most, beforeLastWrite }));
      process.exit(0);`,
      500,
    );
    const [stdout, stderr] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    const { most, beforeLastWrite } = JSON.parse(stderr);
    // Reached, and never passed by more than the batch that reached it: past it, the writer wrote itself.
    expect(most).toBeGreaterThan(90_000);
    expect(most).toBeLessThanOrEqual(100_000 + 10_000);
    expect(beforeLastWrite).toBeGreaterThan(0);
    expect(
      stdout
        .trimEnd()
        .split("\n")
        .map((line) => line.split(":")[0]),
    ).toEqual(numbered(100));
    expect(await child.exited).toBe(0);
  });

  test("given the writer is closed (its thread retired), then what waited and what comes after are written here, in order", async () => {
    const child = run(`import { OffThreadWrites } from ${writesModule};
      const writes = new OffThreadWrites(1);
      for (let i = 0; i < 3000; i++) writes.write(i + "\\n");
      writes.close();
      for (let i = 3000; i < 6000; i++) writes.write(i + "\\n");
      await new Promise((resolve) => setTimeout(resolve, 100));
      process.exit(0);`);
    expect((await new Response(child.stdout).text()).trimEnd().split("\n")).toEqual(numbered(6000));
    expect(await child.exited).toBe(0);
  });

  test("given the service's log moved off thread, then info lines, an error and the lines after it reach stdout in order by exit", async () => {
    const child = run(`import { logger, writeLogOffThread } from ${loggerModule};
      writeLogOffThread();
      const log = logger("test");
      for (let i = 0; i < 3000; i++) log.info({ i }, "line");
      log.error("broken");
      for (let i = 3000; i < 6000; i++) log.info({ i }, "line");
      process.exit(0);`);
    const stdout = await new Response(child.stdout).text();
    const lines = stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string; i?: number });
    expect(lines.map((line) => line.i ?? line.msg)).toEqual([
      ...Array.from({ length: 3000 }, (_, i) => i),
      "broken",
      ...Array.from({ length: 3000 }, (_, i) => 3000 + i),
    ]);
    expect(await child.exited).toBe(0);
  });
});
