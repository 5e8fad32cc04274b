// The overhead of Idempotency-Key on POST /api/tasks, embedded profile:
//   bun bench/idempotency.bench.ts [--quick] [creates per mode] [throughput seconds per mode]
// Defaults: 300 creates, 8 s (quick mode, --quick or BENCH_QUICK=1: 60 creates, 3 s).
// One service process on a fresh DATA_DIR, 12 accounts taking turns (a task with its transcript given
// finishes at once, so the 3-task limit rarely answers; a 429 is retried after 2 ms with a new key and not
// timed). Every ratio's two sides are measured in turns, so that a loaded machine slows both alike:
// - sequential requests take turns one by one, without a key, with a fresh key, a replay of a kept answer (then
//   the other way round, and so on): the p50s are of interleaved samples;
// - then each mode creates tasks from 3 clients in 5 rounds of slices, without and with (A B, B A, ...),
//   `seconds` per mode in all: throughput with ÷ without is the median of the rounds' ratios.
// Figures: p50 with ÷ without, and throughput with ÷ without (the cost of the reservation and the kept answer:
// one insert and one update in the read-model store per request); a replay's p50 ÷ a creation's.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { startServiceProcess, type RunningService } from "../test/support/service-process.ts";
import { median, percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { inTurns, medianRatio } from "./support/in-turns.ts";
import { quick as quickByEnvironment } from "./support/quick.ts";

const quick = quickByEnvironment || process.argv.includes("--quick");
const positional = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const creates = Number(positional[0] ?? (quick ? 60 : 300));
const seconds = Number(positional[1] ?? (quick ? 3 : 8));
const env = { RATE_LIMIT_PER_MINUTE: "1000000000", REGISTRATIONS_PER_MINUTE: "1000000", TRANSCRIPTION_WORKER: "off", LOG_LEVEL: "warn" };
const segments = [
  { start: 0, end: 2500, text: "Good morning and welcome to the weekly meeting." },
  { start: 2500, end: 5000, text: "Let us start with the numbers from last week." },
];

async function register(service: RunningService, n: number): Promise<string> {
  const response = await fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: `Bench ${n}`, email: `bench${n}@example.com`, password: "password123", password_confirmation: "password123" }),
  });
  if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

let keyCounter = 0;

/** One 201 of POST /api/tasks, timed in ms; `keyed`: with a fresh Idempotency-Key per attempt. */
async function createOne(service: RunningService, token: string, keyed: boolean, index: number): Promise<number> {
  for (;;) {
    const headers: Record<string, string> = { "content-type": "application/json", authorization: `Bearer ${token}` };
    if (keyed) headers["idempotency-key"] = `bench-${process.pid}-${++keyCounter}`;
    const body = JSON.stringify({ disk: "objstore", name: `Bench ${index}`, path: "meeting.mp3", duration: 5, segments });
    const t0 = performance.now();
    const response = await fetch(`${service.url}/api/tasks`, { method: "POST", headers, body });
    await response.arrayBuffer();
    const elapsed = performance.now() - t0;
    if (response.status === 201) return elapsed;
    if (response.status !== 429) throw new Error(`POST /api/tasks: ${response.status}\n${service.output().split("\n").slice(-20).join("\n")}`);
    await Bun.sleep(2);
  }
}

/** Tasks per second made by 3 clients in a slice of `sliceSeconds` (until the last one's answer). */
async function made(service: RunningService, tokens: string[], keyed: boolean, sliceSeconds: number): Promise<number> {
  const started = performance.now();
  const deadline = started + sliceSeconds * 1000;
  let made = 0;
  await Promise.all(
    [0, 1, 2].map(async (client) => {
      for (let i = 0; performance.now() < deadline; i++) {
        await createOne(service, tokens[(client * 4 + i) % tokens.length]!, keyed, i);
        made++;
      }
    }),
  );
  return made / ((performance.now() - started) / 1000);
}

/** Tasks per second of each mode (the median of its slices) and with ÷ without (the median of the rounds' ratios). */
async function throughput(service: RunningService, tokens: string[]): Promise<{ plain: number; keyed: number; ratio: number }> {
  const rounds = 5; // odd, so that the median ratio is one round's
  const pairs = await inTurns(rounds, (side) => made(service, tokens, side === "a", seconds / rounds));
  console.log(`sustained by round, with ÷ without: ${pairs.map((p) => `${((p.a / p.b) * 100).toFixed(0)}%`).join(", ")}`);
  const middle = (side: "a" | "b") => median(pairs.map((p) => p[side]));
  return { keyed: middle("a"), plain: middle("b"), ratio: medianRatio(pairs) };
}

const dataDir = mkdtempSync(`${tmpdir()}/scribe-idempotency-bench-`);
const service = await startServiceProcess(env, dataDir);
try {
  const tokens: string[] = [];
  for (let n = 0; n < 12; n++) tokens.push(await register(service, n));
  const token = (i: number) => tokens[i % tokens.length]!;
  for (let i = 0; i < 30; i++) await createOne(service, token(i), i % 2 === 1, i); // warm-up, both paths

  // A replay: the kept answer, read and sent again without processing.
  const replayHeaders = { "content-type": "application/json", authorization: `Bearer ${token(0)}`, "idempotency-key": "bench-replayed" };
  const replayBody = JSON.stringify({ disk: "objstore", name: "Replayed", path: "meeting.mp3", duration: 5, segments });
  await (await fetch(`${service.url}/api/tasks`, { method: "POST", headers: replayHeaders, body: replayBody })).arrayBuffer();
  const replay = async (): Promise<number> => {
    const t0 = performance.now();
    const response = await fetch(`${service.url}/api/tasks`, { method: "POST", headers: replayHeaders, body: replayBody });
    await response.arrayBuffer();
    const elapsed = performance.now() - t0;
    if (response.headers.get("idempotent-replayed") !== "true") throw new Error(`not a replay: ${response.status}`);
    return elapsed;
  };

  // In turns, one request each (then the other way round), so that whatever drifts over the run (the log's growth,
  // the machine) weighs on all three alike.
  const plain: number[] = [];
  const keyed: number[] = [];
  const replays: number[] = [];
  for (let i = 0; i < creates; i++) {
    const turns = [
      async () => plain.push(await createOne(service, token(2 * i), false, i)),
      async () => keyed.push(await createOne(service, token(2 * i + 1), true, i)),
      async () => replays.push(await replay()),
    ];
    for (const turn of i % 2 === 0 ? turns : turns.reverse()) await turn();
  }

  const { plain: plainPerSecond, keyed: keyedPerSecond, ratio: sustainedRatio } = await throughput(service, tokens);
  const p50 = { plain: percentile(plain, 50), keyed: percentile(keyed, 50), replay: percentile(replays, 50) };
  console.log(
    `POST /api/tasks, ${creates} sequential creates each${quick ? " (quick)" : ""}: without the header p50 ${p50.plain.toFixed(2)} ms, p99 ${percentile(plain, 99).toFixed(2)} ms; ` +
      `with a fresh Idempotency-Key p50 ${p50.keyed.toFixed(2)} ms, p99 ${percentile(keyed, 99).toFixed(2)} ms; a replay p50 ${p50.replay.toFixed(2)} ms`,
  );
  console.log(
    `sustained (3 clients, ${seconds} s each in all, medians): ${plainPerSecond.toFixed(1)} tasks/s without, ${keyedPerSecond.toFixed(1)} tasks/s with`,
  );
  figure("POST /api/tasks p50 without Idempotency-Key", p50.plain, "ms");
  figure("POST /api/tasks p50 with Idempotency-Key", p50.keyed, "ms");
  figure("p50 with Idempotency-Key ÷ without", p50.keyed / p50.plain, "×");
  figure("sustained creation with Idempotency-Key ÷ without", sustainedRatio * 100, "%");
  figure("a replay's p50 ÷ a creation's p50 (without the header)", p50.replay / p50.plain, "×");
} finally {
  await service.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
