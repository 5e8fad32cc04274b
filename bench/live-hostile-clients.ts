// The hostile clients of bench/live-hostile.bench.ts, in a process of their own: what a client does to make its
// frames (a 10 MB string, masked frames, deep JSON) must not count against the service's /api/health, which the
// bench's process serves and measures. `bun bench/live-hostile-clients.ts <ws url> <max seconds> <keys JSON>`, the keys
// being one array per round: [free plan's key, then five paid ones]. Prints "done" when every round has ended.
import { garbage, hugeFrame, neverReads, pastMaxLength, refused, tooFast } from "../test/live/hostile-clients.ts";

const [url, maxSecondsText, keysJson] = process.argv.slice(2);
if (!url || !maxSecondsText || !keysJson) throw new Error("usage: bun bench/live-hostile-clients.ts <ws url> <max seconds> <keys JSON>");
const maxSeconds = Number(maxSecondsText);
const rounds = JSON.parse(keysJson) as [string, string, string, string, string, string][];

/** One round of every hostile client at once, each on its own account. */
async function round([free, a, b, c, d, e]: [string, string, string, string, string, string]): Promise<void> {
  await Promise.all([
    refused(url!, null),
    refused(url!, free),
    garbage(url!, a),
    hugeFrame(url!, b),
    tooFast(url!, c),
    pastMaxLength(url!, d, maxSeconds),
    neverReads(url!, e),
  ]);
}

await Promise.all(rounds.map(round));
console.log("done");
