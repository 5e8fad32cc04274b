// A separate process that hits GET <url>/api/health every `intervalMs` (one request at a time, keep-alive)
// until SIGTERM, then prints one JSON line: { latencies (ms), failures }. Run apart from the benchmark so
// that the benchmark's own work (building and sending bodies of megabytes) never delays a probe.
//   bun bench/support/health-prober.ts <base url> [intervalMs]
const url = `${process.argv[2]}/api/health`;
const intervalMs = Number(process.argv[3] ?? 2);
const latencies: number[] = [];
const failures: string[] = [];
let stopping = false;

process.on("SIGTERM", () => {
  stopping = true;
});

while (!stopping) {
  const started = performance.now();
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    const ms = performance.now() - started;
    if (response.status === 200) latencies.push(ms);
    else failures.push(`status ${response.status} after ${ms.toFixed(1)} ms`);
  } catch (error) {
    failures.push(`${(error as Error).name}: ${(error as Error).message} after ${(performance.now() - started).toFixed(1)} ms`);
  }
  const wait = intervalMs - (performance.now() - started);
  await Bun.sleep(Math.max(0, wait));
}
// Written whole before exiting: into a pipe, a line of a long run's latencies is more than the pipe holds, and
// process.stdout.write followed by process.exit cut it short (the bench then failed to parse it).
await Bun.write(Bun.stdout, `${JSON.stringify({ latencies, failures })}\n`);
process.exit(0);

export {};
