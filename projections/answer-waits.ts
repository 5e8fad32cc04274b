import type { Projection, WaitForProjections } from "../src/core/projection.ts";

/**
 * Read-your-writes as a write's answer gives it: a wait on every read model (no names) waits in full for those that
 * show a write at once, and for each read model with an `answerWaitMs` at most that long. Its wait goes on behind the
 * answer, its failure ignored: the write is in the log, and that read model folds it when it gets there. A wait that
 * names its read models waits for them in full, as before.
 */
export function withAnswerWaits(waitFor: WaitForProjections, projections: readonly Projection[]): WaitForProjections {
  const bounded = projections.filter((projection) => projection.answerWaitMs !== undefined);
  if (bounded.length === 0) return waitFor;
  const inFull = projections.filter((projection) => projection.answerWaitMs === undefined).map((projection) => projection.name);
  return async (position, names) => {
    if (names) return waitFor(position, names);
    await waitFor(position, inFull);
    await Promise.all(bounded.map((projection) => atMost(waitFor(position, [projection.name]), projection.answerWaitMs ?? 0)));
  };
}

/** Settles when `waiting` does or after `ms`, whichever is first; never rejects. */
function atMost(waiting: Promise<void>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([waiting.catch(() => undefined), elapsed]).finally(() => clearTimeout(timer));
}
