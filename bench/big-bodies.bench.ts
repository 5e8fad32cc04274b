// Big JSON bodies against the real service (embedded profile, its own process, loopback), while a separate process
// (bench/support/health-prober.ts) asks GET /api/health every 2 ms:
//   bun bench/big-bodies.bench.ts [seconds] [shapes]      (default 20 s per phase, 3 s in quick mode; all shapes)
//
// Each phase runs on a fresh service (so that its peak RSS is its own), with 2 and then 4 clients (one account each)
// sending one shape of body to POST /api/tasks, one request after another, for `seconds`:
//   million-key   12 MB: one object of a million members (a task's fields and a million more). Refused (422) as its
//                 text arrives (src/http/json-shape.ts); parsed, it held the event loop 0.65-3 s.
//   maximal       TRANSCRIPT_BODY_LIMIT_BYTES of valid transcript: 100,000 segments whose texts fill the body. Parsed
//                 on a thread (src/http/json-body-threads.ts), validated and stored: 201.
//   names         the costliest body every shape rule lets through: 100,000 segments of 17 members, 14 drawn from
//                 1,000 names (each object a new order of names for JSON.parse), no `path`. Parsed on the thread,
//                 what the schema names handed back, then 422 on `path`.
// Reported per phase: GET /api/health p50, p99 and max; the service's peak RSS (VmHWM and VmRSS from
// /proc/<pid>/status, sampled every 50 ms, through the load and 2 s after it); answers by status.
// Goals: /api/health p99 <= 10 ms under million-key bodies (2 clients); peak RSS <= 512 MiB with 4 clients
// (million-key and maximal valid bodies).
import { startServiceProcess } from "../test/support/service-process.ts";
import { defaultRequestLimits } from "../src/http/request-limits.ts";
import { memoryOf, mib, RssSampler } from "./support/rss.ts";
import { startHealthProber } from "./support/start-health-prober.ts";
import { percentile } from "./support/stats.ts";
import { figure, type Goal } from "./support/figures.ts";
import { argument, numberArgument } from "./support/quick.ts";

const seconds = numberArgument(0, 20, 3);
const shapes = argument(1, "million-key,maximal,names", "million-key,maximal,names").split(",");
const nodeEnv = process.env.NODE_ENV ?? "production";
const env = { NODE_ENV: nodeEnv, RATE_LIMIT_PER_MINUTE: "1000000000", REGISTRATIONS_PER_MINUTE: "1000000" };
const transcriptLimit = Number(process.env.TRANSCRIPT_BODY_LIMIT_BYTES || defaultRequestLimits.transcriptBodyBytes);
const goals = { healthP99Ms: 10, peakMiB: 512 };
const encoder = new TextEncoder();

// ---- bodies ----------------------------------------------------------------------------------------

function millionKeys(): Uint8Array {
  const members = Array.from({ length: 1_000_000 }, (_, i) => `,"k${String(i).padStart(6, "0")}":1`).join("");
  return encoder.encode(`{"disk":"objstore","name":"Million keys","path":"meeting.mp3"${members}}`);
}

/** 100,000 segments (segmentsSchema's maxItems) whose texts fill the body to exactly `size` bytes. */
function maximalTask(size: number): Uint8Array {
  const count = 100_000;
  const head = '{"disk":"objstore","name":"Maximal transcript","path":"meeting.mp3","segments":[';
  const shells = Array.from({ length: count }, (_, i) => [`{"start":${i * 1000},"end":${i * 1000 + 900},"text":"`, '"}'] as const);
  const fixed = head.length + 2 + (count - 1) + shells.reduce((n, [a, b]) => n + a.length + b.length, 0);
  const each = Math.floor((size - fixed) / count);
  const extra = size - fixed - each * count;
  const words = "so we will now look at the numbers from last week and what they mean for the plan ahead ".repeat(Math.ceil((each + 100) / 80));
  const parts = [head];
  for (let i = 0; i < count; i++) {
    const offset = (i * 7) % 80;
    parts.push(`${i ? "," : ""}${shells[i]![0]}${words.slice(offset, offset + each + (i < extra ? 1 : 0)).replace(/^ | $/g, "w")}${shells[i]![1]}`);
  }
  parts.push("]}");
  return encoder.encode(parts.join(""));
}

function manyNameOrders(): Uint8Array {
  let seed = 1;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) % 1000;
  const parts = ['{"disk":"objstore","name":"Names","segments":['];
  for (let i = 0; i < 100_000; i++) {
    const members = Array.from({ length: 14 }, () => `"n${next()}":1`).join(",");
    parts.push(`${i ? "," : ""}{"start":${i},"end":${i + 1},"text":"w",${members}}`);
  }
  parts.push("]}");
  return encoder.encode(parts.join(""));
}

// ---- one phase -------------------------------------------------------------------------------------

type Phase = {
  shape: string;
  clients: number;
  health: { p50: number; p99: number; max: number; n: number; failures: number };
  peakMiB: number;
  statuses: string;
};

const startProber = (url: string) => {
  const prober = startHealthProber(url);
  return () => prober.stop();
};

async function phase(shape: string, body: Uint8Array, clients: number): Promise<Phase> {
  const service = await startServiceProcess(env);
  try {
    const tokens: string[] = [];
    for (let i = 0; i < clients; i++) {
      const response = await fetch(`${service.url}/api/register`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          name: `Client${i}`,
          email: `big-${i}-${crypto.randomUUID().slice(0, 8)}@example.com`,
          password: "password123",
          password_confirmation: "password123",
        }),
      });
      if (response.status !== 201) throw new Error(`register: ${response.status} ${await response.text()}`);
      tokens.push(((await response.json()) as { token: string }).token);
    }
    await Bun.sleep(500);
    const stopProber = startProber(service.url);
    await Bun.sleep(300);
    const sampler = new RssSampler(service.process.pid, 50).start();
    const statuses = new Map<string, number>();
    const firsts = new Map<string, string>();
    const deadline = performance.now() + seconds * 1000;
    await Promise.all(
      tokens.map(async (token) => {
        while (performance.now() < deadline) {
          let status: string;
          try {
            const response = await fetch(`${service.url}/api/tasks`, {
              method: "POST",
              headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
              body,
              signal: AbortSignal.timeout(60_000),
            });
            const text = await response.text();
            status = String(response.status);
            if (!firsts.has(status)) firsts.set(status, text.slice(0, 160));
          } catch (error) {
            status = (error as Error).name;
          }
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        }
      }),
    );
    await Bun.sleep(2000); // what the service does after answering (projections, summaries of created tasks)
    const memory = sampler.stop();
    const probes = await stopProber();
    const latencies = probes.latencies;
    for (const [status, text] of firsts) console.log(`  first ${status}: ${text}`);
    return {
      shape,
      clients,
      health: {
        p50: percentile(latencies, 50),
        p99: percentile(latencies, 99),
        max: Math.max(...latencies),
        n: latencies.length,
        failures: probes.failures.length,
      },
      peakMiB: mib(Math.max(memory.peak, memoryOf(service.process.pid)?.hwm ?? 0)),
      statuses: [...statuses].map(([k, v]) => `${k}×${v}`).join(" "),
    };
  } finally {
    await service.stop();
  }
}

// ---- run -------------------------------------------------------------------------------------------

const makers: [string, () => Uint8Array][] = [
  ["million-key", millionKeys],
  ["maximal", () => maximalTask(transcriptLimit)],
  ["names", manyNameOrders],
];
const bodies = makers.filter(([name]) => shapes.includes(name)).map(([name, make]) => [name, make()] as const);
console.log(
  `Big bodies: ${seconds} s per phase, service NODE_ENV=${nodeEnv}; ${bodies.map(([name, body]) => `${name} ${(body.byteLength / 1e6).toFixed(1)} MB`).join(", ")}.`,
);
const results: Phase[] = [];
for (const [shape, body] of bodies) {
  for (const clients of [2, 4]) {
    console.log(`\n== ${shape}, ${clients} clients ==`);
    const result = await phase(shape, body, clients);
    results.push(result);
    const h = result.health;
    console.log(
      `GET /api/health: n=${h.n} p50 ${h.p50.toFixed(2)} ms, p99 ${h.p99.toFixed(2)} ms, max ${h.max.toFixed(1)} ms, ${h.failures} failures; peak RSS ${result.peakMiB.toFixed(1)} MiB; answers ${result.statuses}`,
    );
  }
}

console.log("\n== Summary ==");
console.log("shape        clients  health p50   p99        max        peak RSS");
for (const r of results) {
  console.log(
    `${r.shape.padEnd(12)} ${String(r.clients).padStart(7)}  ${`${r.health.p50.toFixed(2)} ms`.padEnd(12)} ${`${r.health.p99.toFixed(2)} ms`.padEnd(10)} ${`${r.health.max.toFixed(1)} ms`.padEnd(10)} ${r.peakMiB.toFixed(1)} MiB   ${r.statuses}`,
  );
}
/** A phase's figure, when that phase ran (the shapes argument may leave some out). */
const report = (shape: string, clients: number, name: string, value: (phase: Phase) => number, unit: string, goal: Goal | null = null) => {
  const ran = results.find((r) => r.shape === shape && r.clients === clients);
  if (ran) figure(name, value(ran), unit, goal);
};
report("million-key", 2, "GET /api/health p99, 2 clients sending million-key objects", (r) => r.health.p99, "ms", { op: "<=", value: goals.healthP99Ms });
report("million-key", 4, "GET /api/health p99, 4 clients sending million-key objects", (r) => r.health.p99, "ms");
report("million-key", 4, "peak RSS, 4 clients sending million-key objects", (r) => r.peakMiB, "MiB", { op: "<=", value: goals.peakMiB });
report("maximal", 2, "GET /api/health p99, 2 clients sending maximal valid transcripts", (r) => r.health.p99, "ms");
report("maximal", 4, "peak RSS, 4 clients sending maximal valid transcripts", (r) => r.peakMiB, "MiB", { op: "<=", value: goals.peakMiB });
report("names", 2, "GET /api/health p99, 2 clients sending 100,000 objects of 1,000 names", (r) => r.health.p99, "ms");
report("names", 4, "peak RSS, 4 clients sending 100,000 objects of 1,000 names", (r) => r.peakMiB, "MiB");
figure(
  "GET /api/health failures, all phases",
  results.reduce((n, r) => n + r.health.failures, 0),
  "",
  { op: "<=", value: 0 },
);
