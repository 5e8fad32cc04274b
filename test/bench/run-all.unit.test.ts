// bench/run-all.ts's bookkeeping: goals, the records benches write, what a run came to, and the table. No bench
// runs here (timed figures do not belong in the suite).
import { describe, expect, test } from "bun:test";
import { formatGoal, formatNumber, met, parseRecords, type Figure } from "../../bench/support/figures.ts";
import { outcomeOf } from "../../bench/support/run-bench.ts";
import { renderTable, rowsOf, summaryOf } from "../../bench/support/table.ts";
import { median } from "../../bench/support/stats.ts";

const figure = (name: string, value: number, goal: Figure["goal"] = null): Figure => ({ bench: "tasks", name, value, unit: "ms", goal });

describe("goals", () => {
  test("at most and at least, the bound itself included", () => {
    expect(met(10, { op: "<=", value: 10 })).toBe(true);
    expect(met(10.01, { op: "<=", value: 10 })).toBe(false);
    expect(met(25, { op: ">=", value: 25 })).toBe(true);
    expect(met(24.9, { op: ">=", value: 25 })).toBe(false);
  });

  test("a figure without a goal is neither met nor missed; one that could not be measured misses its goal", () => {
    expect(met(3, null)).toBeNull();
    expect(met(Number.NaN, { op: "<=", value: 10 })).toBe(false);
    expect(met(Number.POSITIVE_INFINITY, { op: ">=", value: 1 })).toBe(false);
  });

  test("goals and values read as written", () => {
    expect(formatGoal({ op: "<=", value: 65_536 }, "B")).toBe("≤ 65,536 B");
    expect(formatGoal({ op: ">=", value: 0.5 }, "")).toBe("≥ 0.5");
    expect(formatGoal({ op: "<=", value: 0.417, of: "PocketSphinx alone" }, "")).toBe("≤ 0.417 (PocketSphinx alone)");
    expect([45_123.4, 183.46, 12.34, 1.234, 0.04213, 10, 0, Number.NaN].map(formatNumber)).toEqual([
      "45,123",
      "183",
      "12.3",
      "1.23",
      "0.042",
      "10",
      "0",
      "n/a",
    ]);
  });
});

describe("the records benches write", () => {
  test("figures and skips are read back; NaN, written as null, reads back as NaN", () => {
    const text = [
      JSON.stringify(figure("p99", 4.2, { op: "<=", value: 10 })),
      JSON.stringify({ ...figure("p99 at 1,000 req/s", Number.NaN), value: null }),
      JSON.stringify({ bench: "wer", skipped: "no LibriSpeech clips" }),
      "",
    ].join("\n");
    const records = parseRecords(text);
    expect(records[0]).toEqual(figure("p99", 4.2, { op: "<=", value: 10 }));
    expect(Number.isNaN((records[1] as Figure).value)).toBe(true);
    expect(records[2]).toEqual({ bench: "wer", skipped: "no LibriSpeech clips" });
  });

  test("a line cut short by a killed bench, or anything else, is left out; a goal that is not one is dropped", () => {
    const records = parseRecords(
      ['{"bench":"tasks","name":"a","val', "not json", "[1,2]", '{"name":"no bench"}', JSON.stringify({ ...figure("b", 1), goal: { op: "<", value: 1 } })].join(
        "\n",
      ),
    );
    expect(records).toEqual([figure("b", 1)]);
  });
});

describe("what a run came to", () => {
  const ended = { code: 0, signal: null, timedOutAfter: null };
  test("figures and a clean exit: ok", () => {
    expect(outcomeOf("tasks", ended, [figure("p99", 1)]).status).toBe("ok");
  });
  test("a clean exit without any figure is a failure: a bench that stopped reporting must not pass unseen", () => {
    expect(outcomeOf("tasks", ended, [])).toMatchObject({ status: "failed", detail: "reported no figure" });
  });
  test("a skip, a non-zero exit, a signal and the time limit", () => {
    expect(outcomeOf("wer", ended, [{ bench: "wer", skipped: "no clips" }])).toMatchObject({ status: "skipped", detail: "no clips" });
    expect(outcomeOf("tasks", { ...ended, code: 1 }, [figure("p99", 1)])).toMatchObject({ status: "failed", detail: "exit 1", figures: [figure("p99", 1)] });
    expect(outcomeOf("tasks", { code: null, signal: "SIGKILL", timedOutAfter: null }, [])).toMatchObject({ status: "failed", detail: "killed by SIGKILL" });
    expect(outcomeOf("tasks", { code: null, signal: "SIGTERM", timedOutAfter: 120 }, [])).toMatchObject({ status: "timed out", detail: "after 120 s" });
  });
});

describe("the table", () => {
  const ok = { bench: "tasks", status: "ok" as const, detail: "", seconds: 30, figures: [figure("p99", 4.2, { op: "<=", value: 10 }), figure("p50", 0.5)] };
  const failed = { bench: "rtf", status: "failed" as const, detail: "exit 1", seconds: 5, figures: [figure("rtf", 0.9, { op: "<=", value: 0.5 })] };

  test("one row per figure with its verdict, and a row saying why a bench stopped", () => {
    expect([...rowsOf(ok), ...rowsOf(failed)].map((r) => [r.bench, r.figure, r.value, r.goal, r.met])).toEqual([
      ["tasks", "p99", "4.20", "≤ 10", "yes"],
      ["tasks", "p50", "0.500", "", "—"],
      ["rtf", "rtf", "0.900", "≤ 0.5", "no"],
      ["rtf", "FAILED: exit 1", "", "", "—"],
    ]);
  });

  test("columns line up under their titles", () => {
    const lines = renderTable(rowsOf(ok)).split("\n");
    expect(lines[0]).toMatch(/^bench\s+figure\s+value\s+unit\s+goal\s+met$/);
    expect(new Set(lines.slice(1).map((l) => l.indexOf("ms")))).toEqual(new Set([-1, lines[0]!.indexOf("unit")]));
  });

  test("the summary counts benches and goals; only a failed bench makes the run fail, not a missed goal", () => {
    expect(summaryOf([ok])).toEqual({ ok: true, line: "1 bench in 0 min 30 s, 1 ran; 1 goal: 1 met, 0 not met" });
    const withMiss = { ...ok, figures: [figure("p99", 40, { op: "<=", value: 10 })] };
    expect(summaryOf([withMiss]).ok).toBe(true);
    expect(summaryOf([ok, failed])).toEqual({ ok: false, line: "2 benches in 0 min 35 s, 1 ran, 1 failed; 2 goals: 1 met, 1 not met" });
  });
});

test("the median of the turns of an A/B comparison: the middle one, or the mean of the two middle ones", () => {
  expect(median([3, 1, 2])).toBe(2);
  expect(median([0.84, 2.83])).toBeCloseTo(1.835);
});
