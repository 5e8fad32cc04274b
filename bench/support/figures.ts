// One way for a benchmark to report a figure: a line for the reader, and, when bench/run-all.ts runs the bench
// (it sets BENCH_FIGURES to a file), one JSON line appended to that file, so that the whole run ends with one
// table of every figure and whether its goal was met.
import { appendFileSync } from "node:fs";
import { basename } from "node:path";

/** A figure's goal: at most (`<=`) or at least (`>=`) `value`; `of` names what the value is, when it was measured too. */
export type Goal = { op: "<=" | ">="; value: number; of?: string };
export type Figure = { bench: string; name: string; value: number; unit: string; goal: Goal | null };
/** A bench that could not run here (missing test data or tools): not a failure, but shown. */
export type Skip = { bench: string; skipped: string };
export type BenchRecord = Figure | Skip;

/** `tasks` for bench/tasks.bench.ts: the name run-all and its table know the bench by. */
export const benchName = basename(Bun.main).replace(/(\.bench)?\.ts$/, "");

/** Whether `value` meets `goal`: null without a goal; a value that could not be measured (NaN) never does. */
export function met(value: number, goal: Goal | null): boolean | null {
  if (!goal) return null;
  if (!Number.isFinite(value)) return false;
  return goal.op === "<=" ? value <= goal.value : value >= goal.value;
}

/** Enough digits to compare runs, no more: 45,123 · 183.5 · 1.23 · 0.0421. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return "n/a";
  const magnitude = Math.abs(value);
  const digits = Number.isInteger(value) || magnitude >= 100 ? 0 : magnitude >= 10 ? 1 : magnitude >= 1 ? 2 : 3;
  return value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function formatGoal(goal: Goal | null, unit: string): string {
  if (!goal) return "";
  return `${goal.op === "<=" ? "≤" : "≥"} ${goal.value.toLocaleString("en-US", { maximumFractionDigits: 3 })}${unit ? ` ${unit}` : ""}${goal.of ? ` (${goal.of})` : ""}`;
}

function record(line: BenchRecord): void {
  const file = process.env.BENCH_FIGURES;
  if (file) appendFileSync(file, `${JSON.stringify(line)}\n`);
}

/** Reports one headline figure of this bench. */
export function figure(name: string, value: number, unit: string, goal: Goal | null = null): void {
  const verdict = met(value, goal);
  const goalText = goal ? `  goal ${formatGoal(goal, unit)}: ${verdict ? "met" : "NOT met"}` : "";
  console.log(`» ${name}: ${formatNumber(value)}${unit ? ` ${unit}` : ""}${goalText}`);
  record({ bench: benchName, name, value, unit, goal });
}

/** Ends a bench that cannot run here, saying why; run-all shows it as skipped. */
export function skip(reason: string): never {
  console.log(`SKIPPED: ${benchName}: ${reason}`);
  record({ bench: benchName, skipped: reason });
  process.exit(0);
}

/**
 * The records in a BENCH_FIGURES file. A line that is not a record (a bench killed while writing one) is
 * left out; JSON has no NaN, so a value written as null reads back as NaN.
 */
export function parseRecords(text: string): BenchRecord[] {
  const records: BenchRecord[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof parsed !== "object" || parsed === null || typeof (parsed as { bench?: unknown }).bench !== "string") continue;
    const candidate = parsed as Partial<Figure> & Partial<Skip> & { bench: string };
    if (typeof candidate.skipped === "string") records.push({ bench: candidate.bench, skipped: candidate.skipped });
    else if (typeof candidate.name === "string")
      records.push({
        bench: candidate.bench,
        name: candidate.name,
        value: typeof candidate.value === "number" ? candidate.value : Number.NaN,
        unit: typeof candidate.unit === "string" ? candidate.unit : "",
        goal: isGoal(candidate.goal) ? candidate.goal : null,
      });
  }
  return records;
}

function isGoal(goal: unknown): goal is Goal {
  const g = goal as Goal | null | undefined;
  return typeof g === "object" && g !== null && (g.op === "<=" || g.op === ">=") && typeof g.value === "number";
}
