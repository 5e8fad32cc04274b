// Hostile request bodies against the real service (embedded profile, its own process, loopback):
//   bun bench/hostile-bodies.bench.ts [rounds] [memory seconds]      (defaults: 3 rounds, 20 s; 1 and 3 in quick mode)
//
// 1. Every operation of the service's OpenAPI document (GET /swagger/json) that takes a JSON body gets, one
//    request at a time over a fresh connection (bench/support/raw-http.ts, timed from its first byte written):
//      (a) JSON nested 30,000 levels deep: arrays (~60 KB), objects, both mixed, and unclosed;
//      (b) a body one byte over the route's limit (src/http/request-limits.ts; a route whose schema bounds its body
//          takes less, as its 413 says: asked first);
//      (c) a body of exactly the route's limit: one huge flat array of junk (numbers, objects, strings);
//      (d) malformed JSON (truncated, bad quotes, trailing garbage, invalid UTF-8, bad escape, empty, ...);
//      (e) 200 MB streamed to POST /api/register without a token: with Content-Length (time to 413), and
//          chunked without one (time to 411).
//    Reported: status and answer time of each; max and p99 per kind and over (a) to (d). Every answer must
//    be a 4xx in the spec's error shape (JSON with a string `message`; a 422 also has `errors`), never a 5xx.
//    Goal: worst <= 50 ms over (a)-(d); (e) is reported as time to the answer.
// 2. Meanwhile a separate process (bench/support/health-prober.ts) hits GET /api/health every 2 ms.
//    Goal: p99 <= 10 ms.
// 3. On a fresh service: 4 clients (one account each) send maximal valid POST /api/tasks for `memory seconds`:
//    100,000 segments (segmentsSchema's maxItems) whose texts fill the body to TRANSCRIPT_BODY_LIMIT_BYTES.
//    Reported: the service process's RSS before (baseline) and its peak (VmHWM and VmRSS from
//    /proc/<pid>/status, sampled every 50 ms, through the load and 3 s after it), and requests completed.
//    Goal: peak <= 512 MiB.
import { startServiceProcess, type RunningService } from "../test/support/service-process.ts";
import { defaultRequestLimits } from "../src/http/request-limits.ts";
import { rawRequest, type RawAnswer } from "./support/raw-http.ts";
import { memoryOf, mib, RssSampler } from "./support/rss.ts";
import { startHealthProber } from "./support/start-health-prober.ts";
import { percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const rounds = numberArgument(0, 3, 1);
const memorySeconds = numberArgument(1, 20, 3);
// The image runs with NODE_ENV=production (Dockerfile, compose.yaml), and Elysia builds its validation errors
// differently without it; the service here gets the same unless NODE_ENV is set for this run.
const nodeEnv = process.env.NODE_ENV ?? "production";
// Raised, so every request is read and validated (a refused sign-in or registration counts toward its limit).
const env = { NODE_ENV: nodeEnv, RATE_LIMIT_PER_MINUTE: "1000000000", LOGIN_ATTEMPTS_PER_MINUTE: "1000000000", REGISTRATIONS_PER_MINUTE: "1000000000" };
const limits = {
  body: Number(process.env.BODY_LIMIT_BYTES || defaultRequestLimits.bodyBytes),
  transcript: Number(process.env.TRANSCRIPT_BODY_LIMIT_BYTES || defaultRequestLimits.transcriptBodyBytes),
};
const goals = { worstMs: 50, healthP99Ms: 10, peakMiB: 512 };
const MiB = 1024 * 1024;
const encoder = new TextEncoder();

/** The body limit of a route, as src/http/request-limits.ts applies it (checked below: one byte over is 413, at it is not). */
function limitOf(method: string, path: string): number {
  if ((method === "POST" && path === "/api/tasks") || (method === "PATCH" && path === "/api/tasks/{id}")) return limits.transcript;
  if (method === "PUT" && path === "/api/user") return Math.max(limits.body, 5 * MiB + 64 * 1024);
  return limits.body;
}

type Operation = { method: string; path: string; keys: string[]; arrayKey: string | null; limit: number };
type Kind = "a" | "b" | "c" | "d" | "e";
type Sample = { kind: Kind; variant: string; op: string; answer: RawAnswer; shapeProblem: string | null };
const kindNames: Record<Kind, string> = {
  a: "(a) nested 30,000 deep",
  b: "(b) 1 byte over the limit",
  c: "(c) limit-sized flat junk array",
  d: "(d) malformed JSON",
  e: "(e) 200 MB streamed, no token",
};

async function json(service: RunningService, method: string, path: string, body: unknown, token?: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body: parsed };
}

async function register(service: RunningService, name: string): Promise<string> {
  const email = `${name.toLowerCase()}-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const answer = await json(service, "POST", "/api/register", { name, email, password: "password123", password_confirmation: "password123" });
  if (answer.status !== 201) throw new Error(`register: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body.token as string;
}

/** Why an answer is not a 4xx in spec section 7's shape; null when it is. */
function shapeProblem(answer: RawAnswer): string | null {
  if (answer.error) return `no answer: ${answer.error}`;
  if (answer.status >= 500) return `5xx: ${answer.status}`;
  if (answer.status < 400) return `not an error: ${answer.status}`;
  let parsed: { message?: unknown; errors?: unknown };
  try {
    parsed = JSON.parse(answer.body);
  } catch {
    return `not JSON: ${answer.body.slice(0, 120)}`;
  }
  if (typeof parsed?.message !== "string") return `no string message: ${answer.body.slice(0, 120)}`;
  if (answer.status === 422 && (typeof parsed.errors !== "object" || parsed.errors === null)) return `422 without errors: ${answer.body.slice(0, 120)}`;
  return null;
}

// ---- bodies ----------------------------------------------------------------------------------------

/** `{"key":[unit,unit,...]}` (or a bare array without a key) of exactly `size` bytes, padded with spaces. */
function flatJunk(key: string | null, size: number, unit: string): Uint8Array {
  const prefix = key === null ? "[" : `{${JSON.stringify(key)}:[`;
  const suffix = key === null ? "]" : "]}";
  const room = size - prefix.length - suffix.length;
  const count = Math.max(1, Math.floor((room + 1) / (unit.length + 1)));
  const out = new Uint8Array(size).fill(0x20);
  let at = encoder.encodeInto(prefix, out).written;
  const item = encoder.encode(`${unit},`);
  for (let i = 0; i < count - 1; i++, at += item.byteLength) out.set(item, at);
  at += encoder.encodeInto(unit, out.subarray(at)).written;
  encoder.encodeInto(suffix, out.subarray(size - suffix.length)); // spaces between the last item and the end
  return out;
}

/** `{"key":"xxxx"}` of exactly `size` bytes. */
function longString(key: string, size: number): Uint8Array {
  const frame = `{${JSON.stringify(key)}:""}`;
  return encoder.encode(`{${JSON.stringify(key)}:"${"x".repeat(size - frame.length)}"}`);
}

const levels = 30_000;
function deepBodies(op: Operation): [string, Uint8Array][] {
  const key = op.arrayKey ?? op.keys[0] ?? "a";
  return [
    [`arrays in "${key}"`, encoder.encode(`{${JSON.stringify(key)}:${"[".repeat(levels)}${"]".repeat(levels)}}`)],
    ["objects", encoder.encode(`${'{"":'.repeat(levels - 1)}{}${"}".repeat(levels - 1)}`)],
    ["arrays and objects", encoder.encode(`${'[{"":'.repeat(levels / 2)}0${"}]".repeat(levels / 2)}`)],
    ["arrays, never closed", encoder.encode("[".repeat(levels))],
  ];
}

const malformed: [string, Uint8Array][] = [
  ["truncated", encoder.encode('{"name":"x","email":')],
  ["single quotes", encoder.encode("{'name':'x'}")],
  ["trailing garbage", encoder.encode('{"name":"x"}}}]')],
  ["invalid UTF-8", new Uint8Array([...encoder.encode('{"name":"'), 0xff, 0xfe, 0xc3, 0x28, ...encoder.encode('"}')])],
  ["bad escape", encoder.encode('{"name":"\\u12"}')],
  ["empty", new Uint8Array(0)],
  ["a form, not JSON", encoder.encode("name=x&email=y")],
  ["lone surrogate", encoder.encode('{"name":"\\ud800"}')],
  ["number out of range", encoder.encode('{"name":1e999999,"ids":[1e999999]}')],
  ["NUL bytes", new Uint8Array([0x7b, 0, 0, 0, 0x7d])],
];

/** Bodies of a given size are the same whatever the route; build each once. */
const cache = new Map<string, Uint8Array>();
function cached(name: string, make: () => Uint8Array): Uint8Array {
  let body = cache.get(name);
  if (!body) cache.set(name, (body = make()));
  return body;
}

function hostileBodies(op: Operation): { kind: Kind; variant: string; body: Uint8Array }[] {
  const key = op.arrayKey ?? op.keys[0] ?? "a";
  const stringKey = op.keys.find((k) => k === "name" || k === "email" || k === "path") ?? op.keys[0] ?? "a";
  const size = (n: number) => `${(n / MiB).toFixed(2)} MiB`;
  return [
    ...deepBodies(op).map(([variant, body]) => ({ kind: "a" as const, variant: `${variant}, ${(body.byteLength / 1000).toFixed(0)} KB`, body })),
    { kind: "b", variant: `flat [0,0,...] in "${key}", ${size(op.limit + 1)}`, body: cached(`b0 ${key} ${op.limit}`, () => flatJunk(key, op.limit + 1, "0")) },
    {
      kind: "b",
      variant: `one string "${stringKey}", ${size(op.limit + 1)}`,
      body: cached(`bs ${stringKey} ${op.limit}`, () => longString(stringKey, op.limit + 1)),
    },
    { kind: "c", variant: `[0,0,...] in "${key}", ${size(op.limit)}`, body: cached(`c0 ${key} ${op.limit}`, () => flatJunk(key, op.limit, "0")) },
    { kind: "c", variant: `[{},{},...] in "${key}", ${size(op.limit)}`, body: cached(`co ${key} ${op.limit}`, () => flatJunk(key, op.limit, "{}")) },
    { kind: "c", variant: `["","",...] in "${key}", ${size(op.limit)}`, body: cached(`cs ${key} ${op.limit}`, () => flatJunk(key, op.limit, '""')) },
    ...malformed.map(([variant, body]) => ({ kind: "d" as const, variant, body })),
  ];
}

/** The largest valid POST /api/tasks: segmentsSchema's 100,000 segments, texts of words filling it to `size` bytes. */
function maximalTask(size: number): Uint8Array {
  const count = 100_000;
  const head = `{"disk":"objstore","name":"Maximal transcript","path":"meeting.mp3","segments":[`;
  const tail = "]}";
  const shells = Array.from({ length: count }, (_, i) => [`{"start":${i * 1000},"end":${i * 1000 + 900},"text":"`, '"}']);
  const fixed = head.length + tail.length + (count - 1) + shells.reduce((n, [a, b]) => n + a!.length + b!.length, 0);
  const room = size - fixed;
  if (room < count) throw new Error("TRANSCRIPT_BODY_LIMIT_BYTES too small for 100,000 segments");
  const each = Math.floor(room / count);
  const extra = room - each * count;
  const words = "so we will now look at the numbers from last week and what they mean for the plan ahead ".repeat(Math.ceil((each + 100) / 80));
  const parts: string[] = [head];
  for (let i = 0; i < count; i++) {
    const length = each + (i < extra ? 1 : 0);
    const offset = (i * 7) % 80;
    parts.push(`${i ? "," : ""}${shells[i]![0]}${words.slice(offset, offset + length).replace(/^ | $/g, "w")}${shells[i]![1]}`);
  }
  parts.push(tail);
  const body = encoder.encode(parts.join(""));
  if (body.byteLength !== size) throw new Error(`maximal task body is ${body.byteLength} bytes, meant ${size}`);
  return body;
}

// ---- reporting -------------------------------------------------------------------------------------

const ms = (n: number) => `${n.toFixed(2)} ms`;
function summarize(samples: number[]) {
  return { n: samples.length, p50: percentile(samples, 50), p99: percentile(samples, 99), max: Math.max(...samples) };
}

const startProber = (url: string) => startHealthProber(url);

// ---- 1 and 2: hostile bodies, with health probes alongside -----------------------------------------

const summary: string[] = [];
const misses: string[] = [];

console.log(
  `Hostile bodies: ${rounds} round(s) over every JSON-body operation; body limits ${limits.body} B, transcripts ${limits.transcript} B; service NODE_ENV=${nodeEnv}.`,
);
const service = await startServiceProcess(env);
const samples: Sample[] = [];
let hostilePhase: ReturnType<RssSampler["stop"]> | null = null;
let health: { latencies: number[]; failures: string[] } | null = null;
const operations: Operation[] = [];
try {
  const token = await register(service, "Bench");
  const created = await json(
    service,
    "POST",
    "/api/tasks",
    { disk: "objstore", name: "Target", path: "meeting.mp3", segments: [{ start: 0, end: 1000, text: "hello there" }] },
    token,
  );
  if (created.status !== 201) throw new Error(`POST /api/tasks: ${created.status} ${JSON.stringify(created.body)}`);
  const folder = await json(service, "POST", "/api/folders", { name: "Bench" }, token);
  if (folder.status !== 201) throw new Error(`POST /api/folders: ${folder.status} ${JSON.stringify(folder.body)}`);
  const pathParams: Record<string, string> = { id: String(created.body.id), name: "Bench" };

  type Doc = {
    paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: { properties?: Record<string, { type?: string }> } }> } }>>;
  };
  const doc = (await (await fetch(`${service.url}/swagger/json`)).json()) as Doc;
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const schema = op.requestBody?.content?.["application/json"]?.schema;
      if (!schema) continue;
      const properties = schema.properties ?? {};
      const keys = Object.keys(properties);
      operations.push({
        method: method.toUpperCase(),
        path,
        keys,
        arrayKey: keys.find((k) => properties[k]?.type === "array") ?? null,
        limit: limitOf(method.toUpperCase(), path),
      });
    }
  }
  console.log(`${operations.length} operations take a JSON body: ${operations.map((o) => `${o.method} ${o.path}`).join(", ")}`);
  // A route whose every field is bounded takes less than the ordinary limit (twice its schema's largest body, plus room
  // for ignored members): its own 413 says how much, to a body declared one byte over the ordinary limit.
  for (const op of operations) {
    const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? "1"));
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    const answer = await rawRequest(service.url, op.method, path, headers, { stream: new Uint8Array(64 * 1024).fill(32), total: op.limit + 1 });
    const stated = /takes at most (\d+) bytes/.exec(answer.body)?.[1];
    if (answer.status === 413 && stated !== undefined) op.limit = Number(stated);
  }

  const prober = startProber(service.url);
  await Bun.sleep(500);
  const sampler = new RssSampler(service.process.pid, 50).start();
  try {
    for (let round = 1; round <= rounds; round++) {
      for (const op of operations) {
        const path = op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(pathParams[name] ?? "1"));
        const unauthenticated = op.path === "/api/register" || op.path === "/api/login" || op.path === "/api/auth/social-login";
        const headers = { "content-type": "application/json", ...(!unauthenticated && { authorization: `Bearer ${token}` }) };
        for (const { kind, variant, body } of hostileBodies(op)) {
          const answer = await rawRequest(service.url, op.method, path, headers, body);
          // An empty body where every field is optional (PATCH /api/tasks/{id}) is a request to change nothing: 200, like `{}`.
          const noChange = variant === "empty" && op.method === "PATCH" && op.path === "/api/tasks/{id}" && answer.status === 200;
          samples.push({ kind, variant, op: `${op.method} ${op.path}`, answer, shapeProblem: noChange ? null : shapeProblem(answer) });
        }
      }
      // (e): 200 MB to POST /api/register without a token, streamed 256 KiB at a time.
      const stream = flatJunk("name", 256 * 1024, "0");
      for (const chunked of [false, true]) {
        const answer = await rawRequest(
          service.url,
          "POST",
          "/api/register",
          { "content-type": "application/json" },
          { stream, total: 200_000_000 },
          { chunked, timeoutMs: 60_000 },
        );
        samples.push({
          kind: "e",
          variant: chunked ? "chunked, no Content-Length" : "Content-Length: 200000000",
          op: "POST /api/register",
          answer,
          shapeProblem: shapeProblem(answer),
        });
      }
      process.stdout.write(`  round ${round}/${rounds} done (${samples.length} answers)\n`);
    }
  } finally {
    hostilePhase = sampler.stop();
    health = await prober.stop();
  }
  const after = await fetch(`${service.url}/api/user`, { headers: { authorization: `Bearer ${token}` } });
  if (after.status !== 200) misses.push(`after the hostile bodies, GET /api/user answered ${after.status}`);
} finally {
  await service.stop();
}

// Figures for 1.
console.log("\n== 1. Answers to hostile bodies (time from the first byte sent to the whole answer) ==");
const line = (label: string, list: Sample[]) => {
  const s = summarize(list.map((x) => x.answer.ms));
  const worst = list.reduce((a, b) => (b.answer.ms > a.answer.ms ? b : a));
  const statuses = new Map<number, number>();
  for (const x of list) statuses.set(x.answer.status, (statuses.get(x.answer.status) ?? 0) + 1);
  const statusText = [...statuses]
    .sort(([a], [b]) => a - b)
    .map(([k, v]) => `${k}×${v}`)
    .join(" ");
  return `${label.padEnd(36)} n=${String(s.n).padStart(4)}  p50 ${ms(s.p50).padStart(10)}  p99 ${ms(s.p99).padStart(10)}  max ${ms(s.max).padStart(10)}  [${statusText}]  worst: ${worst.op} ${worst.variant} -> ${worst.answer.status}`;
};
for (const kind of ["a", "b", "c", "d"] as Kind[]) {
  console.log(
    line(
      kindNames[kind],
      samples.filter((s) => s.kind === kind),
    ),
  );
  // Per variant: where the time goes.
  const byVariant = new Map<string, Sample[]>();
  for (const s of samples.filter((x) => x.kind === kind)) {
    const key = s.variant.replace(/ in "[^"]*"/, "").replace(/ "[^"]*"/, "");
    byVariant.set(key, [...(byVariant.get(key) ?? []), s]);
  }
  for (const [variant, list] of byVariant) {
    const worst = list.reduce((a, b) => (b.answer.ms > a.answer.ms ? b : a));
    const upload = worst.answer.sentAllMs;
    console.log(
      `      ${variant.padEnd(44)} max ${ms(worst.answer.ms).padStart(10)} (${worst.op} -> ${worst.answer.status}; ` +
        (upload === null
          ? `answered after ${(worst.answer.bodyBytesBeforeAnswer / MiB).toFixed(2)} MiB of ${(worst.answer.bodyBytes / MiB).toFixed(2)} sent`
          : `body sent by ${ms(upload)}, answer ${ms(worst.answer.ms - upload)} after the last byte`) +
        ")",
    );
  }
}
const allAD = samples.filter((s) => s.kind !== "e");
console.log(line("overall (a)-(d)", allAD));
const overall = summarize(allAD.map((s) => s.answer.ms));
const afterLastByte = summarize(allAD.map((s) => (s.answer.sentAllMs === null ? s.answer.firstByteMs : s.answer.ms - s.answer.sentAllMs)));
console.log(
  `overall (a)-(d), server time only (from the last body byte sent, or to the early answer): p99 ${ms(afterLastByte.p99)}, max ${ms(afterLastByte.max)}`,
);
const streamed = samples.filter((s) => s.kind === "e");
for (const variant of new Set(streamed.map((s) => s.variant))) {
  const list = streamed.filter((s) => s.variant === variant);
  const t = summarize(list.map((s) => s.answer.firstByteMs));
  const sent = Math.max(...list.map((s) => s.answer.bodyBytesBeforeAnswer));
  console.log(
    `${kindNames.e} ${variant}: time to answer p50 ${ms(t.p50)}, max ${ms(t.max)}; statuses ${[...new Set(list.map((s) => s.answer.status))].join(",")}; at most ${(sent / MiB).toFixed(2)} MiB sent before the answer${list.some((s) => s.answer.sentAllMs !== null) ? " (ALL 200 MB sent in some run)" : ""}`,
  );
}
const problems = samples.filter((s) => s.shapeProblem);
console.log(
  `error shape: ${samples.length - problems.length}/${samples.length} answers are a 4xx with a string message (and errors on 422); ${samples.filter((s) => s.answer.status >= 500).length} 5xx`,
);
for (const p of problems.slice(0, 20)) console.log(`  PROBLEM ${p.op} ${kindNames[p.kind]} ${p.variant}: ${p.shapeProblem}`);
// The limits as this benchmark understands them, checked against the answers.
for (const op of operations) {
  const over = samples.filter((s) => s.kind === "b" && s.op === `${op.method} ${op.path}`);
  const at = samples.filter((s) => s.kind === "c" && s.op === `${op.method} ${op.path}`);
  if (over.some((s) => s.answer.status !== 413))
    misses.push(`${op.method} ${op.path}: a body 1 byte over ${op.limit} was not always 413 (${over.map((s) => s.answer.status).join(",")})`);
  if (at.some((s) => s.answer.status === 413)) misses.push(`${op.method} ${op.path}: a body of exactly ${op.limit} bytes was 413`);
}
if (hostilePhase)
  console.log(
    `service RSS during 1: peak ${mib(hostilePhase.peak).toFixed(1)} MiB (VmHWM ${mib(hostilePhase.hwm).toFixed(1)}, highest sample ${mib(hostilePhase.maxRss).toFixed(1)}, ${hostilePhase.samples} samples)`,
  );

console.log("\n== 2. GET /api/health every 2 ms while 1 ran (separate process, keep-alive) ==");
const probe = summarize(health!.latencies);
console.log(
  `GET /api/health: n=${probe.n}, p50 ${ms(probe.p50)}, p99 ${ms(probe.p99)}, max ${ms(probe.max)}; ${health!.failures.length} failures${health!.failures.length ? `: ${health!.failures.slice(0, 5).join("; ")}` : ""}`,
);
const slowProbes = health!.latencies.filter((l) => l > goals.healthP99Ms).length;
console.log(`probes over ${goals.healthP99Ms} ms: ${slowProbes} (${((slowProbes / probe.n) * 100).toFixed(2)}%)`);

// ---- 3: memory under maximal valid bodies -----------------------------------------------------------

console.log(`\n== 3. Memory: 4 clients sending maximal valid POST /api/tasks for ${memorySeconds} s ==`);
const maximal = maximalTask(limits.transcript);
console.log(`body: 100,000 segments, ${maximal.byteLength} bytes (TRANSCRIPT_BODY_LIMIT_BYTES ${limits.transcript})`);
const memService = await startServiceProcess(env);
let memory: (ReturnType<RssSampler["stop"]> & { baseline: number; end: number; statuses: Map<string, number>; latencies: number[] }) | null = null;
let memHealth: { latencies: number[]; failures: string[] } | null = null;
try {
  const tokens = await Promise.all([1, 2, 3, 4].map((i) => register(memService, `Client${i}`)));
  await Bun.sleep(1000);
  const baseline = memoryOf(memService.process.pid)!.rss;
  const prober = startProber(memService.url);
  const sampler = new RssSampler(memService.process.pid, 50).start();
  const statuses = new Map<string, number>();
  const latencies: number[] = [];
  const deadline = performance.now() + memorySeconds * 1000;
  await Promise.all(
    tokens.map(async (token) => {
      while (performance.now() < deadline) {
        const started = performance.now();
        let status: string;
        try {
          const response = await fetch(`${memService.url}/api/tasks`, {
            method: "POST",
            headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
            body: maximal,
            signal: AbortSignal.timeout(60_000),
          });
          const text = await response.text();
          status = String(response.status);
          if (response.status === 201) latencies.push(performance.now() - started);
          else if (!statuses.has(status)) console.log(`  first ${status}: ${text.slice(0, 200)}`);
        } catch (error) {
          status = (error as Error).name;
        }
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === "429") await Bun.sleep(20);
      }
    }),
  );
  await Bun.sleep(3000); // what the service does after answering (summaries, mind maps, projections)
  const peak = sampler.stop();
  memHealth = await prober.stop();
  memory = { baseline, ...peak, end: memoryOf(memService.process.pid)?.rss ?? 0, statuses, latencies };
} finally {
  await memService.stop();
}
const created = memory!.statuses.get("201") ?? 0;
const statusText = [...memory!.statuses].map(([k, v]) => `${k}×${v}`).join(" ");
console.log(
  `baseline RSS ${mib(memory!.baseline).toFixed(1)} MiB; peak RSS ${mib(memory!.peak).toFixed(1)} MiB (VmHWM ${mib(memory!.hwm).toFixed(1)}, highest 50 ms sample ${mib(memory!.maxRss).toFixed(1)}, ${memory!.samples} samples); RSS 3 s after the load ${mib(memory!.end).toFixed(1)} MiB; child processes' RSS at most ${mib(memory!.maxChildrenRss).toFixed(1)} MiB`,
);
const createdLatency = memory!.latencies.length ? summarize(memory!.latencies) : null;
console.log(
  `requests: ${created} completed (201) in ${memorySeconds} s, all answers ${statusText}${createdLatency ? `; 201 latency p50 ${ms(createdLatency.p50)}, max ${ms(createdLatency.max)}` : ""}`,
);
const mh = summarize(memHealth!.latencies);
console.log(`(extra, no goal) GET /api/health every 2 ms during 3: p50 ${ms(mh.p50)}, p99 ${ms(mh.p99)}, max ${ms(mh.max)}`);

// ---- summary ---------------------------------------------------------------------------------------

const verdict = (ok: boolean) => (ok ? "MET" : "NOT MET");
for (const kind of ["a", "b", "c", "d"] as Kind[]) {
  const s = summarize(samples.filter((x) => x.kind === kind).map((x) => x.answer.ms));
  summary.push(`${kindNames[kind].padEnd(34)} max ${ms(s.max).padStart(10)}  p99 ${ms(s.p99).padStart(10)}  ${verdict(s.max <= goals.worstMs)}`);
}
summary.push(
  `${"overall (a)-(d)".padEnd(34)} max ${ms(overall.max).padStart(10)}  p99 ${ms(overall.p99).padStart(10)}  goal worst <= ${goals.worstMs} ms: ${verdict(overall.max <= goals.worstMs)}`,
);
for (const variant of new Set(streamed.map((s) => s.variant))) {
  const t = summarize(streamed.filter((s) => s.variant === variant).map((s) => s.answer.firstByteMs));
  summary.push(
    `${kindNames.e} ${variant}: time to ${[...new Set(streamed.filter((s) => s.variant === variant).map((s) => s.answer.status))].join(",")} max ${ms(t.max)}`,
  );
}
summary.push(
  `error shape: ${problems.length === 0 ? "every answer a 4xx with {message}, no 5xx" : `${problems.length} answers NOT in shape or 5xx`}  ${verdict(problems.length === 0)}`,
);
summary.push(
  `GET /api/health during 1: p50 ${ms(probe.p50)}  p99 ${ms(probe.p99)}  max ${ms(probe.max)}  goal p99 <= ${goals.healthP99Ms} ms: ${verdict(probe.p99 <= goals.healthP99Ms && health!.failures.length === 0)}`,
);
summary.push(
  `memory: baseline ${mib(memory!.baseline).toFixed(1)} MiB, peak ${mib(memory!.peak).toFixed(1)} MiB, ${created} maximal tasks created (4 clients, ${memorySeconds} s)  goal <= ${goals.peakMiB} MiB: ${verdict(mib(memory!.peak) <= goals.peakMiB)}`,
);
if (overall.max > goals.worstMs) misses.push(`worst answer to a hostile body ${ms(overall.max)} > ${goals.worstMs} ms`);
if (problems.length) misses.push(`${problems.length} answers not a 4xx in the error shape`);
if (probe.p99 > goals.healthP99Ms) misses.push(`health p99 ${ms(probe.p99)} > ${goals.healthP99Ms} ms`);
if (mib(memory!.peak) > goals.peakMiB) misses.push(`peak RSS ${mib(memory!.peak).toFixed(1)} MiB > ${goals.peakMiB} MiB`);
if (created === 0) misses.push("no maximal task was created");

console.log("\n== Summary ==");
for (const s of summary) console.log(s);
for (const m of misses) console.log(`MISS: ${m}`);
figure("hostile body (a)-(d), worst answer", overall.max, "ms", { op: "<=", value: goals.worstMs });
figure("hostile body (a)-(d), p99", overall.p99, "ms");
figure("answers not a 4xx in the error shape", problems.length, "", { op: "<=", value: 0 });
const limitMisses = operations.filter((op) =>
  samples.some((s) => s.op === `${op.method} ${op.path}` && ((s.kind === "b" && s.answer.status !== 413) || (s.kind === "c" && s.answer.status === 413))),
).length;
figure("routes whose body limit is not where expected", limitMisses, "", { op: "<=", value: 0 });
figure("GET /api/health meanwhile, p99", probe.p99, "ms", { op: "<=", value: goals.healthP99Ms });
figure("GET /api/health meanwhile, failures", health!.failures.length, "", { op: "<=", value: 0 });
figure("peak RSS under maximal valid bodies", mib(memory!.peak), "MiB", { op: "<=", value: goals.peakMiB });
figure("maximal valid tasks created", created, "", { op: ">=", value: 1 });
