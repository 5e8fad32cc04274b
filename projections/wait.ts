import { checkpointId, type Checkpoints } from "./checkpoints.ts";
import type { WaitForProjections } from "../src/core/projection.ts";
import { patienceOf, watchProgress, type Patience } from "./patience.ts";

/** How often the shared watcher reads the checkpoints while anyone waits. */
const POLL_MS = 10;

type Waiter = { position: number; ids: string[]; resolve: () => void; stopWatching: () => void };

/**
 * For an API process whose projections run elsewhere (cluster profile): waits until the saved checkpoints pass the
 * position, or gives up as `patience` says (by default once they stand still 5 s, or after 60 s), by the same rule as
 * the in-process runner's waits; a projection busy with a long event counts its beats in its checkpoint meanwhile.
 *
 * All the waits of one process share one watcher: while any request waits, it reads every checkpoint waited on in
 * one query each POLL_MS, however many requests wait. (A poll per request multiplied the load on the store the
 * lagging writer needs, just when it lags.)
 */
export function waitForCheckpoints(checkpoints: Checkpoints, allNames: string[], given: Partial<Patience> | number = {}): WaitForProjections {
  const patience = patienceOf(given);
  const seen = new Map<string, { position: number; beat: number }>();
  const waiters = new Set<Waiter>();
  let polling = false;

  const reached = (waiter: Pick<Waiter, "position" | "ids">) => waiter.ids.every((id) => (seen.get(id)?.position ?? 0) >= waiter.position);

  const poll = async () => {
    polling = true;
    try {
      while (waiters.size > 0) {
        const ids = [...new Set([...waiters].flatMap((waiter) => waiter.ids))];
        try {
          for (const [id, entry] of await checkpoints.entries(ids)) seen.set(id, entry);
        } catch {
          // The store did not answer: no progress to see; the waiters' patience decides.
        }
        for (const waiter of waiters) if (reached(waiter)) waiter.resolve();
        if (waiters.size > 0) await Bun.sleep(POLL_MS);
      }
    } finally {
      polling = false;
    }
  };

  return (position, names, withinMs) => {
    const ids = (names ?? allNames).map(checkpointId);
    if (seen.size > 0 && reached({ position, ids })) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      // A new position or a new beat of an event being applied (runner.ts), of any projection waited on, is progress.
      const progress = () => ids.map((id) => `${seen.get(id)?.position ?? 0}:${seen.get(id)?.beat ?? 0}`).join();
      const waiter: Waiter = {
        position,
        ids,
        resolve: () => {
          waiters.delete(waiter);
          waiter.stopWatching();
          resolve();
        },
        stopWatching: () => undefined,
      };
      waiter.stopWatching = watchProgress(withinMs === undefined ? patience : patienceOf(withinMs), progress, (why) => {
        waiters.delete(waiter);
        const behind = ids.find((id) => (seen.get(id)?.position ?? 0) < position) ?? ids[0];
        reject(new Error(`projection ${behind?.replace(/^projection:/, "")} did not reach position ${position}: ${why}`));
      });
      waiters.add(waiter);
      if (!polling) void poll();
    });
  };
}
