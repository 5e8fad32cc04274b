// Quick mode (BENCH_QUICK=1, which `bun bench/run-all.ts --quick` sets): every bench with small sizes and short
// durations, so that all of them run in under 3 minutes on a 2-core machine. Quick figures are rougher and say
// whether something broke, not how fast it is: compare full runs.

export const quick = process.env.BENCH_QUICK === "1";

/** The bench's positional argument `index` (0 is the first after the file name), else its default for the mode. */
export function argument(index: number, full: string, quickDefault: string): string {
  return process.argv[2 + index] ?? (quick ? quickDefault : full);
}

export function numberArgument(index: number, full: number, quickDefault: number): number {
  return Number(argument(index, String(full), String(quickDefault)));
}

/** `full` normally, `quickValue` in quick mode: sizes a bench has no argument for. */
export const sized = <T>(full: T, quickValue: T): T => (quick ? quickValue : full);
