// Every benchmark, one after another, and one table of their figures against their goals:
//   bun bench/run-all.ts [--quick] [--only <name,...>] [--limit <seconds>] [--json <file>]
//   npm run bench [-- --quick ...]          (first installs what the benches need: scripts/setup.sh --bench)
// --quick: small sizes and short runs (BENCH_QUICK=1 to each bench), all of them in under 3 minutes on a 2-core
//   machine; the full run takes about half an hour.
// --only tasks,http: those benches (bench/<name>.bench.ts) alone.
// --limit: stop a bench that runs longer (default 120 s each in quick mode, 30 min otherwise): it is failed.
// --json: also write the outcomes and the table to a file.
// Benches run one at a time, since each measures the machine. One that fails is shown as failed and the others
// still run; the exit status is 1 when any failed. A goal not met is shown, not failed: on a shared machine a
// figure can miss its goal by chance, and the table is for a person to read.
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "../src/cli/args.ts";
import { runBench, stopCurrentBench, type BenchOutcome } from "./support/run-bench.ts";
import { renderTable, rowsOf, summaryOf } from "./support/table.ts";

const usage = "usage: bun bench/run-all.ts [--quick] [--only <name,...>] [--limit <seconds>] [--json <file>]";
const { options: given, words } = parseArgs(process.argv.slice(2));
const strange = [...words, ...[...given.keys()].filter((name) => !["quick", "only", "limit", "json"].includes(name)).map((name) => `--${name}`)];
if (strange.length > 0 || given.get("quick")?.some((value) => value !== "true")) {
  console.error(`not understood: ${strange.join(" ") || `--quick ${given.get("quick")}`}\n${usage}`);
  process.exit(2);
}
const options = { quick: given.has("quick"), only: given.get("only")?.at(-1), limit: given.get("limit")?.at(-1), json: given.get("json")?.at(-1) };

const quick = options.quick;
const limitSeconds = Number(options.limit ?? (quick ? 120 : 1800));
const available = readdirSync(import.meta.dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .map((f) => f.replace(/\.bench\.ts$/, ""))
  .sort();
const chosen = options.only ? options.only.split(",").map((name) => name.trim().replace(/\.bench\.ts$/, "")) : available;
const unknown = chosen.filter((name) => !available.includes(name));
if (unknown.length > 0 || !(limitSeconds > 0)) {
  console.error(`${unknown.length > 0 ? `no such bench: ${unknown.join(", ")} (there are: ${available.join(", ")})` : `--limit ${options.limit}?`}\n${usage}`);
  process.exit(2);
}

process.on("SIGINT", () => {
  stopCurrentBench();
  process.exit(130);
});

const outcomes: BenchOutcome[] = [];
for (const [i, name] of chosen.entries()) {
  console.log(`\n=== ${name} (${i + 1}/${chosen.length}${quick ? ", quick" : ""}) ===`);
  const outcome = await runBench(join(import.meta.dir, `${name}.bench.ts`), { quick, limitSeconds });
  outcomes.push(outcome);
  console.log(`=== ${name}: ${outcome.status}${outcome.detail ? ` (${outcome.detail})` : ""} in ${outcome.seconds.toFixed(1)} s ===`);
}

const rows = outcomes.flatMap(rowsOf);
const summary = summaryOf(outcomes);
console.log(`\n${renderTable(rows)}\n\n${summary.line}${quick ? " (quick mode: rough figures)" : ""}`);
if (options.json) writeFileSync(options.json, `${JSON.stringify({ quick, outcomes, rows, summary: summary.line }, null, 2)}\n`);
process.exit(summary.ok ? 0 : 1);
