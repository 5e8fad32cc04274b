import { describe, expect, test } from "bun:test";
import { startServiceProcess } from "../support/service-process.ts";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("the service as `npm start` runs it (embedded profile)", () => {
  test("`npm start` serves health, JSON 404s and the OpenAPI document, and SIGTERM to npm stops it all", async () => {
    // The README's command itself: npm, its shell, setup, then the service (exec'd, so npm's signal reaches it).
    const service = await startServiceProcess({}, undefined, undefined, ["npm", "start"]);
    try {
      expect(await (await fetch(`${service.url}/api/health`)).json()).toEqual({ status: "ok" });
      const missing = await fetch(`${service.url}/api/unknown`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ message: "Not found." });
      const openapi = (await (await fetch(`${service.url}/swagger/json`)).json()) as { paths: Record<string, unknown> };
      expect(openapi.paths["/api/health"]).toBeDefined();
      expect(service.output()).toContain("event store: SQLite");
    } finally {
      expect(await service.stop()).toBe(0);
    }
    expect(service.output()).toContain("stopping");
    // Nothing left behind: no process still serves the port, as none would under systemd or a container's stop.
    expect(
      await fetch(`${service.url}/api/health`).then(
        () => "answered",
        () => "refused",
      ),
    ).toBe("refused");
    // The service's own pid, from its log lines (npm's banner comes first).
    const servicePid = Number(/"pid":(\d+)/.exec(service.stdout())?.[1]);
    expect(servicePid).not.toBe(service.process.pid);
    expect(alive(servicePid)).toBe(false);
  });

  test("refuses to start with a clear message when configuration is wrong", async () => {
    const child = Bun.spawn([process.execPath, "src/main.ts"], {
      cwd: `${import.meta.dir}/../..`,
      env: { ...process.env, PORT: "not-a-port" },
      stderr: "pipe",
      stdout: "pipe",
    });
    expect(await child.exited).toBe(1);
    expect(await new Response(child.stderr).text()).toContain("PORT must be an integer");
  });
});
