import { describe, expect, test } from "bun:test";
import { startServiceProcess } from "../support/service-process.ts";

describe("the service as `npm start` runs it (embedded profile)", () => {
  test("serves health, JSON 404s and the OpenAPI document, and stops cleanly on SIGTERM", async () => {
    const service = await startServiceProcess();
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
