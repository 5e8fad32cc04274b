// /api/health's latency while hostile clients use GET /v1/realtime (test/live/hostile-clients.ts: no credentials, a
// free plan's key, garbage frames, a 10 MB frame, audio at 20x real time, audio past the maximum length, a client that
// never reads), several rounds of them at once, against the same service with nobody on it. Health is asked every 10 ms
// over the real port, one request at a time, as a load balancer's probe would. The hostile clients run in a process of
// their own (bench/live-hostile-clients.ts), as they would on another machine: making a 10 MB frame is their cost,
// and they run at nice 19, so the cores they take are those the service leaves.
// `bun bench/live-hostile.bench.ts`; quick mode: one round.
import { startTestApp, type TestApp } from "../test/support/test-app.ts";
import { scriptPace } from "../test/support/limits.ts";
import { listen } from "../test/live/realtime-client.ts";
import { figure } from "./support/figures.ts";
import { sized } from "./support/quick.ts";
import { percentile } from "./support/stats.ts";

const maxSeconds = 10;
const app: TestApp = await startTestApp({
  ...scriptPace,
  TRANSCRIPTION_WORKER: "off",
  LIVE_SESSIONS_PER_ACCOUNT: "1",
  LIVE_SESSIONS_AT_ONCE: "64",
  LIVE_SESSION_MAX_SECONDS: String(maxSeconds),
  LIVE_BURST_SECONDS: "2",
});
const server = listen(app);
const base = server.url.replace("ws://", "http://");

async function keyOn(plan: "pro" | "free"): Promise<string> {
  const user = await app.register();
  await app.setPlan(user.id, "pro");
  const created = await app.request("POST", "/api/api-keys", { token: user.token, json: { name: "bench" } });
  if (plan === "free") await app.setPlan(user.id, "free");
  return ((await created.json()) as { key: string }).key;
}

/** Health's answer times, asked one after another every 10 ms, until `done` settles (or for `ms` when it is a number). */
async function healthTimes(done: Promise<unknown> | number): Promise<number[]> {
  let finished = false;
  const until = typeof done === "number" ? Bun.sleep(done) : done;
  void until.finally(() => {
    finished = true;
  });
  const times: number[] = [];
  while (!finished) {
    const started = performance.now();
    await (await fetch(`${base}/api/health`)).arrayBuffer();
    times.push(performance.now() - started);
    await Bun.sleep(10);
  }
  return times;
}

/** Keys for `count` rounds: per round a free plan's, then five paid ones, each on its own account. */
const roundKeys = (count: number) =>
  Promise.all(Array.from({ length: count }, () => Promise.all([keyOn("free"), ...Array.from({ length: 5 }, () => keyOn("pro"))])));

/** Every round of hostile clients at once, in a process of their own. */
async function rounds(keys: string[][]): Promise<void> {
  // At the lowest priority: on another machine they would take none of the service's two cores.
  const child = Bun.spawn(["nice", "-n", "19", "bun", "bench/live-hostile-clients.ts", server.url, String(maxSeconds), JSON.stringify(keys)], {
    stdout: "pipe",
    stderr: "inherit",
  });
  const said = await new Response(child.stdout).text();
  if ((await child.exited) !== 0 || !said.includes("done")) throw new Error(`the hostile clients failed: ${said}`);
}

try {
  await healthTimes(1_000);
  const quiet = await healthTimes(8_000);
  const count = sized(3, 1);
  const keys = await roundKeys(count);
  const hostile = await healthTimes(rounds(keys));
  console.log(`health asked ${quiet.length} times alone, ${hostile.length} times beside ${count} round(s) of 7 hostile clients`);
  figure("/api/health p50, nobody on /v1/realtime", percentile(quiet, 50), "ms");
  figure("/api/health p99, nobody on /v1/realtime", percentile(quiet, 99), "ms", { op: "<=", value: 10 });
  figure("/api/health p50, hostile live clients", percentile(hostile, 50), "ms");
  figure("/api/health p99, hostile live clients", percentile(hostile, 99), "ms", { op: "<=", value: 10 });
  figure("/api/health slowest, hostile live clients", Math.max(...hostile), "ms");
} finally {
  await server.stop();
  await app.close();
}
