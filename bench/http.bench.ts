// HTTP ceilings on the real service (embedded profile), measured with wrk, 64 connections:
//   bun bench/http.bench.ts [seconds]        (default 10; 1 in quick mode)
// GET /api/health is the ceiling later endpoints are compared with; GET /api/user (authenticated,
// rate limit raised) is reported as a ratio of it in the same run.
import { startServiceProcess } from "../test/support/service-process.ts";
import { requireWrk, wrk } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument, quick } from "./support/quick.ts";

requireWrk();
const seconds = numberArgument(0, 10, 1);
const service = await startServiceProcess({ RATE_LIMIT_PER_MINUTE: "1000000000" });
try {
  const registered = await fetch(`${service.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Bench", email: "bench@example.com", password: "password123", password_confirmation: "password123" }),
  });
  const { token } = (await registered.json()) as { token: string };
  await wrk(`${service.url}/api/health`, { seconds: quick ? 1 : 2 }); // warm-up
  const health = await wrk(`${service.url}/api/health`, { seconds });
  const user = await wrk(`${service.url}/api/user`, { seconds, headers: { authorization: `Bearer ${token}` } });
  const line = (name: string, r: typeof health) =>
    `${name}: ${Math.round(r.requestsPerSecond)} req/s, p50 ${r.p50Ms.toFixed(2)} ms, p99 ${r.p99Ms.toFixed(2)} ms${r.non2xx ? `, ${r.non2xx} non-2xx` : ""}`;
  console.log(line("GET /api/health", health));
  console.log(line("GET /api/user  ", user));
  console.log(`GET /api/user / GET /api/health: ${((user.requestsPerSecond / health.requestsPerSecond) * 100).toFixed(1)}% of health's requests/s`);
  figure("GET /api/health", health.requestsPerSecond, "req/s");
  figure("GET /api/user", user.requestsPerSecond, "req/s");
  figure("GET /api/user, of health's req/s", (user.requestsPerSecond / health.requestsPerSecond) * 100, "%");
} finally {
  await service.stop();
}
