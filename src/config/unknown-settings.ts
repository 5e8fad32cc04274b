/**
 * Name families only Scribe's settings use: a variable that starts with one is meant for Scribe, so one
 * the schema does not know is a mistake. Deliberately narrow: NATS_STREAM_ and not NATS_ (the nats CLI
 * reads NATS_CONTEXT, NATS_USER...), no AWS_ (the SDK's), no SCRIBE_ (Kubernetes names its own variables
 * after a service called scribe).
 */
export const settingFamilies = [
  "S3_",
  "NATS_STREAM_",
  "MONGODB_",
  "EVENTSTORE_",
  "TRANSCRIPTION_",
  "WHISPER_",
  "SPHINX_",
  "SUMMARY_",
  "OPENAI_COMPAT_",
  "MEDIA_FETCH_",
  "WEBHOOK_",
  "IDP_",
  "METRICS_",
  "LOG_",
  "RATE_LIMIT_",
  "EXPORT_",
  "JSON_MAX_",
] as const;

/**
 * Never ours, however close to one of our names: other programs' prefixes, and the variables Kubernetes
 * (and Docker's links) set for every service in reach (`MONGODB_SERVICE_HOST`, `NATS_PORT_4222_TCP_ADDR`).
 */
const foreign = /^(BUN_|NODE_|XDG_|LC_|AWS_)|_SERVICE_(HOST|PORT)(_|$)|_PORT(_\d+_(TCP|UDP|SCTP)(_(PROTO|PORT|ADDR))?)?$/;

/** Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`, counting no further than `limit` + 1. */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2]! + 1);
      current.push(best);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

/** How many edits away a name still reads as a typo of `known`: none for short names, two for long ones. */
const tolerance = (known: string) => (known.length < 4 ? 0 : known.length < 10 ? 1 : 2);

function nearest(name: string, known: readonly string[]): { name: string; distance: number } | null {
  let best: { name: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(name, candidate, 4);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best;
}

/**
 * The variables of `env` plainly meant for Scribe that it does not know, one problem each: a name in one of
 * our families, or a typo of one of our names. Anything else in the environment (PATH, HOME, npm_*, other
 * programs' settings) is none of our business.
 */
export function unknownSettings(env: Record<string, string | undefined>, known: readonly string[]): string[] {
  const knownSet = new Set(known);
  const problems: string[] = [];
  for (const name of Object.keys(env).sort()) {
    if (knownSet.has(name) || !/^[A-Z][A-Z0-9_]*$/.test(name) || foreign.test(name)) continue;
    const family = settingFamilies.find((prefix) => name.startsWith(prefix));
    const close = nearest(name, known);
    const typo = close !== null && close.distance <= tolerance(close.name);
    if (!family && !typo) continue;
    const suggestion = close && close.distance <= Math.max(2, Math.floor(name.length / 4)) ? `did you mean ${close.name}?` : null;
    const reason = suggestion ?? `names starting with ${family} are Scribe's settings; bun run admin config lists them`;
    problems.push(`unknown setting ${name} (${reason})`);
  }
  return problems;
}
