import { fixedRate, type FixedRateResult } from "./fixed-rate.ts";
import { median, wrk } from "./stats.ts";

export type InTurns = {
  /** Requests/s of each: the median of its turns. */
  requestsPerSecond: { a: number; b: number };
  /** A's requests/s ÷ B's: the median of the ratios of the two turns of each round, which ran one after the other. */
  ratio: number;
  /** Latency at a fixed rate, from when each request was due: of each, the run with the lower p99 (A B B A), or its one run (A B). */
  fixedRate: { a: FixedRateResult; b: FixedRateResult };
};

/**
 * The same request to two services (A and B, started alike but for one setting), measured in turns: A B, B A,
 * A B ... with wrk, then A B B A (or A B) at a fixed rate. This machine's speed drifts by tens of percent over a minute
 * and stalls now and then (other tenants), so two runs one after the other would mostly measure that; in turns,
 * drift falls on both alike, a median leaves a stall out, and the ratio shows what the setting costs.
 */
export async function measureInTurns(
  urls: { a: string; b: string },
  headers: Record<string, string>,
  options: { rounds: number; seconds: number; rate: number; rateSeconds: number; rateRuns: 1 | 2 },
): Promise<InTurns> {
  const turns = { a: [] as number[], b: [] as number[] };
  // Warm-up: B is usually a process just started, whose first second under load is slower (JIT, caches).
  for (const url of [urls.a, urls.b]) await wrk(url, { seconds: 2, headers });
  for (let round = 0; round < options.rounds; round++) {
    for (const side of round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const)) {
      const { requestsPerSecond } = await wrk(urls[side], { seconds: options.seconds, headers, timeoutSeconds: 10 });
      console.log(`  round ${round + 1}, ${side.toUpperCase()}: ${Math.round(requestsPerSecond)} req/s`);
      turns[side].push(requestsPerSecond);
      await Bun.sleep(300); // requests wrk gave up on may still be running
    }
  }
  const runs: { a: FixedRateResult[]; b: FixedRateResult[] } = { a: [], b: [] };
  for (const side of options.rateRuns === 2 ? (["a", "b", "b", "a"] as const) : (["a", "b"] as const)) {
    runs[side].push(await fixedRate(urls[side], { rate: options.rate, seconds: options.rateSeconds, headers }));
    await Bun.sleep(300);
  }
  const better = (list: FixedRateResult[]) => list.reduce((x, y) => (y.p99Ms < x.p99Ms ? y : x));
  return {
    requestsPerSecond: { a: median(turns.a), b: median(turns.b) },
    ratio: median(turns.a.map((a, i) => a / turns.b[i]!)),
    fixedRate: { a: better(runs.a), b: better(runs.b) },
  };
}
