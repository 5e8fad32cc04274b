// Login throughput with argon2id at the chosen cost: `bun bench/login.bench.ts [seconds]` (default 10; 2 in
// quick mode). No goal: the cost is chosen for safety, and this shows what it costs.
import { startServiceProcess } from "../test/support/service-process.ts";
import { passwordHashing } from "../src/accounts/secrets.ts";
import { percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const seconds = numberArgument(0, 10, 2);
const service = await startServiceProcess({ LOGIN_ATTEMPTS_PER_MINUTE: "1000000000" });
try {
  const users = 8;
  for (let i = 0; i < users; i++) {
    await fetch(`${service.url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: `U${i}`, email: `u${i}@example.com`, password: "password123", password_confirmation: "password123" }),
    });
  }
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: users }, async (_, i) => {
      while (performance.now() < deadline) {
        const started = performance.now();
        const response = await fetch(`${service.url}/api/login`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email: `u${i}@example.com`, password: "password123" }),
        });
        if (response.status !== 200) throw new Error(`login failed: ${response.status}`);
        await response.arrayBuffer();
        latencies.push(performance.now() - started);
      }
    }),
  );
  console.log(`argon2id cost: memory ${passwordHashing.memoryCost} KiB, ${passwordHashing.timeCost} passes, 1 lane`);
  console.log(
    `login: ${(latencies.length / seconds).toFixed(1)} logins/s with ${users} clients, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms`,
  );
  figure(`logins with ${users} clients`, latencies.length / seconds, "logins/s");
  figure("login p99", percentile(latencies, 99), "ms");
} finally {
  await service.stop();
}
