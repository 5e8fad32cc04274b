// Clients sending one hostile request shape as fast as their answers come back, in a process of their own so that a
// bench can run them below its service's priority (`nice`): on one small machine they would otherwise take the CPU
// the service and the health prober need, and the figures would measure the load generator.
//   bun bench/support/hostile-clients.ts <base url> <method> <path> <body file> <seconds> <tokens, comma-separated>
// One client per token (an empty token sends none). Each sends one request at a time over a fresh connection
// (raw-http.ts, timed from its first byte written). Prints one JSON line:
//   { answers: [{ status, ms, error }], bodies: { status: the first answer's body }, minutes: [calendar minutes
//     (Date.now() / 60,000) the run touched] }
import { rawRequest } from "./raw-http.ts";

const [url, method, path, bodyFile, seconds, tokenList] = process.argv.slice(2);
if (!url || !method || !path || !bodyFile || !seconds || tokenList === undefined) {
  console.error("usage: bun bench/support/hostile-clients.ts <base url> <method> <path> <body file> <seconds> <tokens>");
  process.exit(2);
}
const body = new Uint8Array(await Bun.file(bodyFile).arrayBuffer());
const answers: { status: number; ms: number; error: string | null }[] = [];
const bodies: Record<number, string> = {};
const minutes = new Set<number>();
const until = performance.now() + Number(seconds) * 1000;
await Promise.all(
  tokenList.split(",").map(async (token) => {
    const headers = { "content-type": "application/json", ...(token && { authorization: `Bearer ${token}` }) };
    while (performance.now() < until) {
      minutes.add(Math.floor(Date.now() / 60_000));
      const answer = await rawRequest(url, method, path, headers, body, { timeoutMs: 60_000 });
      answers.push({ status: answer.status, ms: answer.ms, error: answer.error });
      bodies[answer.status] ??= answer.body.slice(0, 200);
      minutes.add(Math.floor(Date.now() / 60_000));
    }
  }),
);
process.stdout.write(`${JSON.stringify({ answers, bodies, minutes: [...minutes] })}\n`);
