import { formatGoal, formatNumber, met } from "./figures.ts";
import type { BenchOutcome } from "./run-bench.ts";

/** One line of run-all's table: a figure, or what became of a bench that gave none. */
export type Row = { bench: string; figure: string; value: string; unit: string; goal: string; met: "yes" | "no" | "—" };

const columns: { key: keyof Row; title: string; right?: boolean }[] = [
  { key: "bench", title: "bench" },
  { key: "figure", title: "figure" },
  { key: "value", title: "value", right: true },
  { key: "unit", title: "unit" },
  { key: "goal", title: "goal" },
  { key: "met", title: "met" },
];

/** A bench's figures, then a line saying why it stopped when it failed or was skipped. */
export function rowsOf(outcome: BenchOutcome): Row[] {
  const rows: Row[] = outcome.figures.map((f) => {
    const verdict = met(f.value, f.goal);
    return {
      bench: outcome.bench,
      figure: f.name,
      value: formatNumber(f.value),
      unit: f.unit,
      goal: formatGoal(f.goal, ""),
      met: verdict === null ? "—" : verdict ? "yes" : "no",
    };
  });
  if (outcome.status !== "ok")
    rows.push({ bench: outcome.bench, figure: `${outcome.status.toUpperCase()}: ${outcome.detail}`, value: "", unit: "", goal: "", met: "—" });
  return rows;
}

/** The rows as a plain-text table, columns padded to their widest cell. */
export function renderTable(rows: Row[]): string {
  const width = (key: keyof Row, title: string) => Math.max(title.length, ...rows.map((r) => r[key].length));
  const widths = columns.map((c) => width(c.key, c.title));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (columns[i]!.right ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [line(columns.map((c) => c.title)), line(widths.map((w) => "-".repeat(w))), ...rows.map((row) => line(columns.map((c) => row[c.key])))].join("\n");
}

/** Counts for the line under the table; `ok` is false when a bench failed or passed its time limit. */
export function summaryOf(outcomes: BenchOutcome[]): { ok: boolean; line: string } {
  const count = (status: BenchOutcome["status"]) => outcomes.filter((o) => o.status === status).length;
  const verdicts = outcomes.flatMap((o) => o.figures.map((f) => met(f.value, f.goal))).filter((v) => v !== null);
  const broken = count("failed") + count("timed out");
  const seconds = outcomes.reduce((sum, o) => sum + o.seconds, 0);
  const parts = [
    `${outcomes.length} bench${outcomes.length === 1 ? "" : "es"} in ${Math.floor(seconds / 60)} min ${Math.round(seconds % 60)} s`,
    `${count("ok")} ran`,
    ...(count("skipped") ? [`${count("skipped")} skipped`] : []),
    ...(count("failed") ? [`${count("failed")} failed`] : []),
    ...(count("timed out") ? [`${count("timed out")} timed out`] : []),
  ];
  const goals = `${verdicts.length} goal${verdicts.length === 1 ? "" : "s"}: ${verdicts.filter(Boolean).length} met, ${verdicts.filter((v) => !v).length} not met`;
  return { ok: broken === 0, line: `${parts.join(", ")}; ${goals}` };
}
