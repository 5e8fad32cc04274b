/**
 * How long a read-your-writes wait holds on. It gives up when the read models it waits on stop moving
 * (`stallMs` without a step forward), not when they are merely busy: four maximal transcripts (100,000
 * segments each) created at once keep the search read model indexing for about 10 s, and a fixed 5 s wait
 * answered the last of those committed writes with a 500, inviting a retry that would create the task twice.
 * `capMs` bounds a request's wait whatever happens.
 */
export type Patience = { stallMs: number; capMs: number };

export const readYourWritesPatience: Patience = { stallMs: 5_000, capMs: 60_000 };

/** A number is one fixed time limit (stall and cap alike), as the CLI and the tests give it. */
export const patienceOf = (given: Partial<Patience> | number = {}): Patience =>
  typeof given === "number" ? { stallMs: given, capMs: given } : { ...readYourWritesPatience, ...given };

/**
 * Looks at `progress` every `stallMs`: a value that changes while the awaited work moves, or null while it is
 * busy (an event being applied, however long it takes). Calls `giveUp` with the reason when it stood still a
 * whole period or the cap passed. Returns a function that stops watching.
 */
export function watchProgress(patience: Patience, progress: () => string | null, giveUp: (why: string) => void): () => void {
  const started = Date.now();
  let seen = progress();
  let timer: Timer;
  const check = () => {
    const elapsed = Date.now() - started;
    if (elapsed >= patience.capMs) return giveUp(`not within ${patience.capMs} ms`);
    const now = progress();
    if (now !== null && now === seen) return giveUp(`no progress for ${patience.stallMs} ms`);
    seen = now;
    timer = setTimeout(check, Math.min(patience.stallMs, patience.capMs - elapsed));
  };
  timer = setTimeout(check, Math.min(patience.stallMs, patience.capMs));
  return () => clearTimeout(timer);
}
