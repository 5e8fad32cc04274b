import { checkpointId, type Checkpoints } from "./checkpoints.ts";
import type { WaitForProjections } from "../src/core/projection.ts";
import { patienceOf, type Patience } from "./patience.ts";

/**
 * For an API process whose projections run elsewhere (cluster profile): watches their saved checkpoints until
 * they pass the position, or gives up as `patience` says (by default once they stand still 5 s, or after 60 s).
 */
export function waitForCheckpoints(checkpoints: Checkpoints, allNames: string[], given: Partial<Patience> | number = {}): WaitForProjections {
  const patience = patienceOf(given);
  return async (position, names) => {
    const started = Date.now();
    for (const name of names ?? allNames) {
      let seen = -1;
      let movedAt = Date.now();
      for (let at = await checkpoints.load(checkpointId(name)); at < position; at = await checkpoints.load(checkpointId(name))) {
        const now = Date.now();
        if (at !== seen) [seen, movedAt] = [at, now];
        if (now - started > patience.capMs) throw new Error(`projection ${name} did not reach position ${position}: not within ${patience.capMs} ms`);
        if (now - movedAt > patience.stallMs) throw new Error(`projection ${name} did not reach position ${position}: no progress for ${patience.stallMs} ms`);
        await Bun.sleep(10);
      }
    }
  };
}
