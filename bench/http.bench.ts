// HTTP ceilings on the real service (embedded profile), measured with wrk, 64 connections:
//   bun bench/http.bench.ts [seconds a turn]        (default 2; 1 in quick mode)
// GET /api/health is the ceiling later endpoints are compared with; GET /api/user (authenticated,
// rate limit raised) is reported as a ratio of it. The two are measured in turns (bench/support/in-turns.ts:
// user, health; health, user; ... 5 rounds), so that a loaded machine slows both alike: each figure is the median
// of its five turns, and the ratio the median of the five rounds' ratios, each of two runs one after the other.
import { startServiceProcess } from "../test/support/service-process.ts";
import { requireWrk, type WrkResult } from "./support/stats.ts";
import { wrkInTurns } from "./support/in-turns.ts";
import { figure } from "./support/figures.ts";
import { numberArgument, quick } from "./support/quick.ts";

requireWrk();
const turnSeconds = numberArgument(0, 2, 1);
const rounds = 5; // odd, so that the median ratio is one round's
const service = await startServiceProcess({ RATE_LIMIT_PER_MINUTE: "1000000000" });
try {
  const registered = await fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", email: "bench@example.com", password: "password123", password_confirmation: "password123" }),
  });
  const { token } = (await registered.json()) as { token: string };
  console.log(`GET /api/user (A) and GET /api/health (B) in turns, ${rounds} rounds of ${turnSeconds} s each:`);
  const turns = await wrkInTurns(
    { a: { url: `${service.url}/api/user`, headers: { authorization: `Bearer ${token}` } }, b: { url: `${service.url}/api/health` } },
    { rounds, seconds: turnSeconds, warmUpSeconds: quick ? 1 : 2 },
  );
  const middle = (side: "a" | "b"): WrkResult => {
    const sorted = turns.rounds.map((pair) => pair[side]).sort((x, y) => x.requestsPerSecond - y.requestsPerSecond);
    return sorted[sorted.length >> 1]!;
  };
  const line = (name: string, r: WrkResult) =>
    `${name}: ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ""} (its median turn)`;
  console.log(line("GET /api/health", middle("b")));
  console.log(line("GET /api/user  ", middle("a")));
  const percent = (pair: { a: WrkResult; b: WrkResult }) => (pair.a.requestsPerSecond / pair.b.requestsPerSecond) * 100;
  console.log(`GET /api/user / GET /api/health by round: ${turns.rounds.map((pair) => `${percent(pair).toFixed(1)}%`).join(", ")}`);
  figure("GET /api/health", turns.requestsPerSecond.b, "req/s");
  figure("GET /api/user", turns.requestsPerSecond.a, "req/s");
  figure("GET /api/user, of health's req/s", turns.ratio * 100, "%");
} finally {
  await service.stop();
}
