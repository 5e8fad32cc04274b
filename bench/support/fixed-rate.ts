import { percentile } from "./stats.ts";

export type FixedRateResult = { sent: number; achievedPerSecond: number; p50Ms: number; p99Ms: number; maxMs: number; errors: number; timedOut: number };

/**
 * An open-loop load generator (what wrk2 does; Debian ships only wrk): request i is due at
 * start + i / rate, whether or not earlier ones have answered, and its latency counts from when it was
 * due, not from when it was sent, so a stalled server is not hidden by a generator that waited for it
 * (no coordinated omission). A request not answered within `timeoutMs` is abandoned and counted at
 * `timeoutMs`, so a server that cannot keep up shows a p99 at the timeout instead of a backlog that
 * takes minutes to drain.
 */
export async function fixedRate(
  url: string,
  options: { rate: number; seconds: number; headers?: Record<string, string>; timeoutMs?: number },
): Promise<FixedRateResult> {
  const timeoutMs = options.timeoutMs ?? 2000;
  const total = Math.round(options.rate * options.seconds);
  const interval = 1000 / options.rate;
  const latencies: number[] = [];
  const inFlight = new Set<Promise<void>>();
  let errors = 0;
  let timedOut = 0;
  let sent = 0;
  const start = performance.now() + 20;
  while (sent < total) {
    const now = performance.now();
    while (sent < total && start + sent * interval <= now) {
      const due = start + sent * interval;
      sent++;
      const request: Promise<void> = fetch(url, { headers: options.headers, signal: AbortSignal.timeout(timeoutMs) })
        .then(async (response) => {
          await response.arrayBuffer();
          if (!response.ok) errors++;
          latencies.push(performance.now() - due);
        })
        .catch((error: unknown) => {
          if ((error as Error).name === "TimeoutError") {
            timedOut++;
            latencies.push(timeoutMs);
          } else errors++;
        })
        .finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    const wait = start + sent * interval - performance.now();
    await (wait >= 1 ? Bun.sleep(wait) : new Promise<void>((resolve) => setImmediate(resolve)));
  }
  const elapsed = (performance.now() - start) / 1000;
  await Promise.all(inFlight);
  return {
    sent,
    achievedPerSecond: sent / elapsed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: Math.max(...latencies),
    errors,
    timedOut,
  };
}
