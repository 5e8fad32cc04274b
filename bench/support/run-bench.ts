import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseRecords, type BenchRecord, type Figure, type Skip } from "./figures.ts";

export type BenchStatus = "ok" | "skipped" | "failed" | "timed out";
export type BenchOutcome = { bench: string; status: BenchStatus; detail: string; seconds: number; figures: Figure[] };

/** What a bench's run came to, from how it ended and what it reported (pure, for the unit test). */
export function outcomeOf(
  bench: string,
  ended: { code: number | null; signal: string | null; timedOutAfter: number | null },
  records: BenchRecord[],
): Omit<BenchOutcome, "seconds"> {
  const figures = records.filter((r): r is Figure => "name" in r);
  const skipped = records.find((r): r is Skip => "skipped" in r);
  const status = (s: BenchStatus, detail: string) => ({ bench, status: s, detail, figures });
  if (ended.timedOutAfter !== null) return status("timed out", `after ${ended.timedOutAfter} s`);
  if (ended.code !== 0) return status("failed", ended.signal ? `killed by ${ended.signal}` : `exit ${ended.code}`);
  if (skipped) return status("skipped", skipped.skipped);
  if (figures.length === 0) return status("failed", "reported no figure");
  return status("ok", "");
}

/**
 * Runs one bench (`bun bench/<name>.bench.ts`) to its end or its time limit, its output going to ours. It gets a
 * process group of its own, so that when it is stopped, or has finished, whatever it started (the service, wrk,
 * recognisers) goes too and cannot weigh on the next bench's figures.
 */
export async function runBench(file: string, options: { quick: boolean; limitSeconds: number }): Promise<BenchOutcome> {
  const bench = basename(file).replace(/\.bench\.ts$/, "");
  const work = mkdtempSync(join(tmpdir(), `scribe-bench-${bench}-`));
  const figuresFile = join(work, "figures.ndjson");
  const started = performance.now();
  const child = Bun.spawn([process.execPath, file], {
    env: { ...process.env, BENCH_FIGURES: figuresFile, ...(options.quick && { BENCH_QUICK: "1" }) },
    stdio: ["ignore", "inherit", "inherit"],
    detached: true,
  });
  current = child.pid;
  let timedOutAfter: number | null = null;
  const timer = setTimeout(() => {
    timedOutAfter = options.limitSeconds;
    console.log(`run-all: ${bench} passed its limit of ${options.limitSeconds} s; stopping it`);
    signalGroup(child.pid, "SIGTERM");
    setTimeout(() => signalGroup(child.pid, "SIGKILL"), 10_000).unref();
  }, options.limitSeconds * 1000);
  const code = await child.exited;
  clearTimeout(timer);
  signalGroup(child.pid, "SIGKILL"); // anything it left running
  current = null;
  let text = "";
  try {
    text = readFileSync(figuresFile, "utf8");
  } catch {
    // it reported nothing
  }
  rmSync(work, { recursive: true, force: true });
  const outcome = outcomeOf(bench, { code, signal: child.signalCode === null ? null : String(child.signalCode), timedOutAfter }, parseRecords(text));
  return { ...outcome, seconds: (performance.now() - started) / 1000 };
}

/** The process group of the bench running now, to stop when run-all itself is interrupted. */
let current: number | null = null;

export function stopCurrentBench(): void {
  if (current !== null) signalGroup(current, "SIGKILL");
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // the group is gone already
  }
}
