// Webhook delivery latency: `bun bench/webhooks.bench.ts [tasks] [at once]` (defaults 300 tasks, 3 at once;
// quick mode 40). The real service (`bun src/main.ts`, embedded profile, WEBHOOK_ALLOWED_NETWORKS=127.0.0.1) and a
// Bun.serve receiver on loopback answering 200; one account with one endpoint subscribed to task.finished.
// Tasks are created with supplied segments (they finish through the supplied-transcripts worker, no
// recognition), at most `at once` in flight (the concurrent-task limit is 3). The latency of one message is
// from its TaskFinished event's time in the log (the payload's `timestamp`) to the receiver getting the
// request: the relay, the bus, the webhooks worker scheduling the message, the delivery worker signing and
// posting it. Every request is verified with the standardwebhooks package. Goals: p50 <= 250 ms, p99 <= 1 s.
import { Webhook } from "standardwebhooks";
import { startServiceProcess } from "../test/support/service-process.ts";
import { percentile } from "./support/stats.ts";
import { figure } from "./support/figures.ts";
import { numberArgument } from "./support/quick.ts";

const taskCount = numberArgument(0, 300, 40);
const atOnce = numberArgument(1, 3, 3);

const arrivals = new Map<number, number>();
let secret = "";
let unverified = 0;
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const at = Date.now();
    const body = await request.text();
    try {
      const payload = new Webhook(secret).verify(body, Object.fromEntries(request.headers)) as { timestamp: string; data: { task: { id: number } } };
      if (!arrivals.has(payload.data.task.id)) arrivals.set(payload.data.task.id, at - Date.parse(payload.timestamp));
    } catch {
      unverified++;
    }
    return new Response(null, { status: 204 });
  },
});

const service = await startServiceProcess({ WEBHOOK_ALLOWED_NETWORKS: "127.0.0.1", RATE_LIMIT_PER_MINUTE: "1000000", LOG_LEVEL: "warn" });
try {
  const call = async (token: string | null, method: string, path: string, json: unknown) => {
    const response = await fetch(`${service.url}${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(json),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const password = "correct horse battery";
  const { token } = (
    await call(null, "POST", "/api/register", { name: "Bench", email: `bench-${crypto.randomUUID()}@example.com`, password, password_confirmation: password })
  ).body;
  secret = (await call(token, "POST", "/api/webhooks", { url: `http://127.0.0.1:${receiver.port}/hooks`, events: ["task.finished"] })).body.secret;

  const ids: number[] = [];
  const deadline = Date.now() + 600_000;
  let next = 0;
  const lane = async () => {
    while (next < taskCount) {
      const n = next++;
      for (;;) {
        const created = await call(token, "POST", "/api/tasks", {
          disk: "objstore",
          name: `Bench ${n}`,
          path: "a.mp3",
          segments: [{ start: 0, end: 1000, text: `bench ${n}` }],
        });
        if (created.status === 201) {
          const id = created.body.id as number;
          ids.push(id);
          // The slot is given back once the task has finished (and a webhook is on its way): wait for the delivery.
          while (!arrivals.has(id) && Date.now() < deadline) await Bun.sleep(2);
          break;
        }
        if (created.status !== 429 || Date.now() > deadline) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
        await Bun.sleep(5);
      }
    }
  };
  await Promise.all(Array.from({ length: atOnce }, lane));
  const latencies = ids.map((id) => arrivals.get(id)).filter((ms): ms is number => ms !== undefined);
  console.log(`${latencies.length} of ${ids.length} deliveries arrived, ${unverified} failed verification`);
  if (latencies.length < ids.length || unverified > 0) throw new Error("a delivery is missing or did not verify");
  figure("delivery latency from TaskFinished, p50", percentile(latencies, 50), "ms", { op: "<=", value: 250 });
  figure("delivery latency from TaskFinished, p99", percentile(latencies, 99), "ms", { op: "<=", value: 1000 });
} finally {
  await service.stop();
  receiver.stop(true);
}
