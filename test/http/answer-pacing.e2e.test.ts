/**
 * A flood of new connections does not starve the connections already open (src/http/answer-pacing.ts). Clients
 * that open a connection per request and send again as soon as they are answered kept Bun in its accept loop: a
 * keep-alive `/api/health` waited 100-180 ms at a time, several times a second, while four of them sent refused
 * registrations for 2 s here. The timings are bench/hostile-load.bench.ts's; here, how often the probe is answered.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bunBinary, startServiceProcess, type RunningService } from "../support/service-process.ts";

describe("a flood of new connections, with a newcomer's settings", () => {
  let service: RunningService;
  let dir: string;
  beforeAll(async () => {
    service = await startServiceProcess();
    dir = mkdtempSync(join(tmpdir(), "scribe-pacing-"));
  });
  afterAll(async () => {
    await service.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("leaves a keep-alive /api/health answered as often as it asks", async () => {
    const bodyFile = join(dir, "registration.json");
    await Bun.write(bodyFile, JSON.stringify({ name: "a".repeat(1024 * 1024), email: "flood@example.com", password: "password123" }));
    // Four clients, one connection per request, in a process of their own below the service's priority.
    const clients = Bun.spawn(["nice", "-n", "10", bunBinary, "bench/support/hostile-clients.ts", service.url, "POST", "/api/register", bodyFile, "2", ",,,"], {
      cwd: join(import.meta.dir, "..", ".."),
      stdout: "pipe",
      stderr: "inherit",
    });
    const waits: number[] = [];
    const probing = (async () => {
      await Bun.sleep(100);
      while (clients.exitCode === null) {
        const started = performance.now();
        const answer = await fetch(`${service.url}/api/health`);
        await answer.arrayBuffer();
        waits.push(performance.now() - started);
        await Bun.sleep(5);
      }
    })();
    const report = JSON.parse(await new Response(clients.stdout).text()) as { answers: { status: number }[] };
    await probing;
    const statuses = new Set(report.answers.map((answer) => answer.status));
    expect(report.answers.length).toBeGreaterThan(1000);
    expect([...statuses].every((status) => status === 413 || status === 429)).toBe(true);
    // The probe asks every 5 ms once answered: about 300 answers in the 2 s now. Before, it waited 100-180 ms at a
    // time, several times a second, and got 110-130; a single long wait can still happen (a collection), so the
    // count is what is checked.
    expect(waits.length).toBeGreaterThan(200);
  }, 30_000);
});
