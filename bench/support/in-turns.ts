import { fixedRate, type FixedRateResult } from "./fixed-rate.ts";
import { median, wrk, type WrkResult } from "./stats.ts";

// This machine's speed drifts by tens of percent over a minute and stalls now and then (other tenants), so a ratio of
// two runs made one after the other mostly measures that. A ratio here is of two sides measured in turns, A B, B A,
// A B ...: each round's two turns run one after the other, so drift falls on both alike, and the median of the
// rounds' ratios leaves a stall out.

export type Side = "a" | "b";
export type Pair<T> = { a: T; b: T };

/** `rounds` rounds of `measure` on each side, in turns: A B, B A, A B ... */
export async function inTurns<T>(rounds: number, measure: (side: Side, round: number) => Promise<T>): Promise<Pair<T>[]> {
  const pairs: Pair<T>[] = [];
  for (let round = 0; round < rounds; round++) {
    const pair: Partial<Pair<T>> = {};
    for (const side of round % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const)) pair[side] = await measure(side, round);
    pairs.push(pair as Pair<T>);
  }
  return pairs;
}

/** The median of each round's A ÷ B. */
export const medianRatio = (pairs: Pair<number>[]): number => median(pairs.map((p) => p.a / p.b));

export type WrkInTurns = {
  /** Requests/s of each: the median of its turns. */
  requestsPerSecond: Pair<number>;
  /** A's requests/s ÷ B's: the median of the rounds' ratios. */
  ratio: number;
  /** Every turn's wrk result, by round. */
  rounds: Pair<WrkResult>[];
};

/** wrk (64 connections, a 10 s timeout) on two targets in turns, after a warm-up of each (2 s unless told; 0: none). */
export async function wrkInTurns(
  targets: Pair<{ url: string; headers?: Record<string, string> }>,
  options: { rounds: number; seconds: number; warmUpSeconds?: number },
): Promise<WrkInTurns> {
  // Warm-up: B is often a process just started, whose first second under load is slower (JIT, caches). 0: none.
  const warmUpSeconds = options.warmUpSeconds ?? 2;
  if (warmUpSeconds > 0) for (const side of ["a", "b"] as const) await wrk(targets[side].url, { seconds: warmUpSeconds, headers: targets[side].headers });
  const rounds = await inTurns(options.rounds, async (side, round) => {
    const result = await wrk(targets[side].url, { seconds: options.seconds, headers: targets[side].headers, timeoutSeconds: 10 });
    console.log(`  round ${round + 1}, ${side.toUpperCase()}: ${Math.round(result.requestsPerSecond)} req/s`);
    await Bun.sleep(300); // requests wrk gave up on may still be running
    return result;
  });
  const rates = rounds.map((pair) => ({ a: pair.a.requestsPerSecond, b: pair.b.requestsPerSecond }));
  return { requestsPerSecond: { a: median(rates.map((r) => r.a)), b: median(rates.map((r) => r.b)) }, ratio: medianRatio(rates), rounds };
}

export type InTurns = {
  /** Requests/s of each: the median of its turns. */
  requestsPerSecond: Pair<number>;
  /** A's requests/s ÷ B's: the median of the ratios of the two turns of each round, which ran one after the other. */
  ratio: number;
  /** Latency at a fixed rate, from when each request was due: of each, the run with the lower p99 (A B B A), or its one run (A B). */
  fixedRate: Pair<FixedRateResult>;
};

/**
 * The same request to two services (A and B, started alike but for one setting), measured in turns with wrk, then
 * A B B A (or A B) at a fixed rate.
 */
export async function measureInTurns(
  urls: Pair<string>,
  headers: Record<string, string>,
  options: { rounds: number; seconds: number; rate: number; rateSeconds: number; rateRuns: 1 | 2 },
): Promise<InTurns> {
  const turns = await wrkInTurns({ a: { url: urls.a, headers }, b: { url: urls.b, headers } }, options);
  const runs: Pair<FixedRateResult[]> = { a: [], b: [] };
  for (const side of options.rateRuns === 2 ? (["a", "b", "b", "a"] as const) : (["a", "b"] as const)) {
    runs[side].push(await fixedRate(urls[side], { rate: options.rate, seconds: options.rateSeconds, headers }));
    await Bun.sleep(300);
  }
  const better = (list: FixedRateResult[]) => list.reduce((x, y) => (y.p99Ms < x.p99Ms ? y : x));
  return { requestsPerSecond: turns.requestsPerSecond, ratio: turns.ratio, fixedRate: { a: better(runs.a), b: better(runs.b) } };
}
