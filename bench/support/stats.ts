import { skip } from "./figures.ts";

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `timeouts`: requests wrk gave up on after its timeout (2 s unless `timeoutSeconds`). */
/** The middle value, or the mean of the two middle values of an even count (percentile 50 would take the upper one). */
export function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export type WrkResult = { requestsPerSecond: number; p50Ms: number; p99Ms: number; non2xx: number; timeouts: number };

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s)$/.exec(value.trim());
  if (!match) return NaN;
  const n = Number(match[1]);
  return match[2] === "us" ? n / 1000 : match[2] === "s" ? n * 1000 : n;
}

/** Runs wrk (Debian package `wrk`) against a URL and reads its figures. */
export async function wrk(
  url: string,
  options: { connections?: number; seconds?: number; threads?: number; headers?: Record<string, string>; timeoutSeconds?: number } = {},
): Promise<WrkResult> {
  const args = ["wrk", `-t${options.threads ?? 2}`, `-c${options.connections ?? 64}`, `-d${options.seconds ?? 10}s`, "--latency"];
  if (options.timeoutSeconds) args.push("--timeout", `${options.timeoutSeconds}s`);
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push("-H", `${name}: ${value}`);
  args.push(url);
  const child = Bun.spawn(args, { stdout: "pipe", stderr: "pipe" });
  const output = await new Response(child.stdout).text();
  if ((await child.exited) !== 0) throw new Error(`wrk failed: ${await new Response(child.stderr).text()}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(output)?.[1] ?? "");
  const p99 = toMs(/\s99%\s+(\S+)/.exec(output)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(output)?.[1] ?? 0);
  const timeouts = Number(/timeout (\d+)/.exec(output)?.[1] ?? 0);
  return { requestsPerSecond: rps, p50Ms: p50, p99Ms: p99, non2xx, timeouts };
}

/** Skips the bench when wrk is missing (`npm run bench` installs it as root: scripts/setup.sh --bench). */
export function requireWrk(): void {
  if (!Bun.which("wrk")) skip("wrk is missing (apt-get install wrk, or run `npm run bench` as root)");
}
