import { checkpointId, type Checkpoints } from "./checkpoints.ts";
import type { WaitForProjections } from "../src/core/projection.ts";
import { patienceOf, watchProgress, type Patience } from "./patience.ts";

/**
 * For an API process whose projections run elsewhere (cluster profile): polls their saved checkpoints until
 * they pass the position, or gives up as `patience` says (by default once they stand still 5 s, or after 60 s),
 * by the same rule as the in-process runner's waits; a projection busy with a long event counts its beats in
 * its checkpoint meanwhile.
 */
export function waitForCheckpoints(checkpoints: Checkpoints, allNames: string[], given: Partial<Patience> | number = {}): WaitForProjections {
  const patience = patienceOf(given);
  return async (position, names) => {
    // A new position or a new beat of an event being applied (runner.ts), of any projection waited on, is progress.
    let progress = "";
    let gaveUp = null as string | null;
    const stopWatching = watchProgress(
      patience,
      () => progress,
      (why) => {
        gaveUp = why;
      },
    );
    try {
      for (const name of names ?? allNames) {
        for (let at = await checkpoints.entry(checkpointId(name)); at.position < position; at = await checkpoints.entry(checkpointId(name))) {
          if (gaveUp !== null) throw new Error(`projection ${name} did not reach position ${position}: ${gaveUp}`);
          progress = `${name}:${at.position}:${at.beat}`;
          await Bun.sleep(10);
        }
      }
    } finally {
      stopWatching();
    }
  };
}
