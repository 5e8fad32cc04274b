import type { Projection, WaitForProjections } from "../src/core/projection.ts";

/**
 * Read-your-writes as a new transcript's answer gives it: a wait on every read model (no names) waits in full for those
 * that show a write at once, and for each read model with an `answerWaitMs` at most that long, then gives up on it
 * quietly: the write is in the log, and that read model folds it when it gets there. A wait that names its read models
 * waits for them as it says.
 */
export function withAnswerWaits(waitFor: WaitForProjections, projections: readonly Projection[]): WaitForProjections {
  const bounded = projections.filter((projection) => projection.answerWaitMs !== undefined);
  if (bounded.length === 0) return waitFor;
  const inFull = projections.filter((projection) => projection.answerWaitMs === undefined).map((projection) => projection.name);
  return async (position, names, withinMs) => {
    if (names) return waitFor(position, names, withinMs);
    await waitFor(position, inFull, withinMs);
    // The wait gives up by itself after answerWaitMs: nothing is left waiting behind the answer.
    const quietly = () => undefined;
    await Promise.all(bounded.map((projection) => waitFor(position, [projection.name], projection.answerWaitMs).catch(quietly)));
  };
}
