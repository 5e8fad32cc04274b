import { join } from "node:path";
import { bunBinary } from "../../test/support/service-process.ts";

export type ProberResult = { latencies: number[]; failures: string[] };

/** Starts health-prober.ts on `url` in a process of its own; `stop()` ends it and gives what it measured. */
export function startHealthProber(url: string, intervalMs = 2): { stop(): Promise<ProberResult> } {
  const child = Bun.spawn([bunBinary, join(import.meta.dir, "health-prober.ts"), url, String(intervalMs)], { stdout: "pipe", stderr: "inherit" });
  return {
    async stop() {
      child.kill("SIGTERM");
      const out = await new Response(child.stdout).text();
      await child.exited;
      return JSON.parse(out.trim().split("\n").at(-1) ?? "{}") as ProberResult;
    },
  };
}
