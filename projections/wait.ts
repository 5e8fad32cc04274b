import { checkpointId, type Checkpoints } from "./checkpoints.ts";
import type { WaitForProjections } from "../src/core/projection.ts";
import { patienceOf, type Patience } from "./patience.ts";

/**
 * For an API process whose projections run elsewhere (cluster profile): watches their saved checkpoints until
 * they pass the position, or gives up as `patience` says (by default once they stand still 5 s, or after 60 s);
 * a projection busy with a long event counts its beats in its checkpoint meanwhile.
 */
export function waitForCheckpoints(checkpoints: Checkpoints, allNames: string[], given: Partial<Patience> | number = {}): WaitForProjections {
  const patience = patienceOf(given);
  return async (position, names) => {
    const started = Date.now();
    for (const name of names ?? allNames) {
      let seen = "";
      let movedAt = Date.now();
      for (let at = await checkpoints.entry(checkpointId(name)); at.position < position; at = await checkpoints.entry(checkpointId(name))) {
        const now = Date.now();
        // A new position, or a new beat of an event being applied (runner.ts), is progress.
        const progress = `${at.position}:${at.beat}`;
        if (progress !== seen) [seen, movedAt] = [progress, now];
        if (now - started > patience.capMs) throw new Error(`projection ${name} did not reach position ${position}: not within ${patience.capMs} ms`);
        if (now - movedAt > patience.stallMs) throw new Error(`projection ${name} did not reach position ${position}: no progress for ${patience.stallMs} ms`);
        await Bun.sleep(10);
      }
    }
  };
}
