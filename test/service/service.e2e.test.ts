import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startServiceProcess } from "../support/service-process.ts";
import { until } from "../support/eventually.ts";

const root = join(import.meta.dir, "../..");

/** The commands of docs/operations.md's log recipe (between its `log-recipe` markers) that read `scribe.log`. */
function logRecipe(): string[] {
  const docs = readFileSync(join(root, "docs/operations.md"), "utf8");
  const block = /<!-- log-recipe[^>]*-->([\s\S]*?)<!-- \/log-recipe -->/.exec(docs)?.[1] ?? "";
  return block.split("\n").filter((line) => /^\s*(id=|jq )/.test(line));
}

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
      await fetch(`${service.url}/api/unknown?following=me`, { headers: { "X-Request-Id": "recipe-7f3a" } });
      // A request's line is written once its answer has gone: a stop at once could come first, on a busy machine.
      await until("the request's log line", () => service.stdout().includes('"reqId":"recipe-7f3a"'), 10_000);
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

    // The docs' recipe, run as written on what `npm start` printed (npm's banner lines included).
    const recipe = logRecipe();
    expect(recipe.length).toBeGreaterThanOrEqual(2);
    const dir = mkdtempSync(join(tmpdir(), "scribe-log-recipe-"));
    try {
      writeFileSync(join(dir, "scribe.log"), service.stdout());
      expect(service.stdout()).toContain("> scribe@");
      for (const command of recipe.filter((line) => line.trim().startsWith("jq "))) {
        const run = Bun.spawnSync(["bash", "-c", `id=recipe-7f3a\n${command}`], { cwd: dir, stdout: "pipe", stderr: "pipe" });
        expect({ command, stderr: run.stderr.toString(), code: run.exitCode }).toEqual({ command, stderr: "", code: 0 });
        const found = run.stdout
          .toString()
          .split("\n")
          .filter(Boolean)
          .map((line) => JSON.parse(line) as { reqId?: string });
        // The line that follows a request finds it, and only what carries its id.
        if (command.includes("$id")) {
          expect(found.length).toBeGreaterThanOrEqual(1);
          expect(found.every((line) => line.reqId === "recipe-7f3a")).toBe(true);
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
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
