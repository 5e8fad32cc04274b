import { checkpointId, type Checkpoints } from "./checkpoints.ts";
import type { WaitForProjections } from "../src/core/projection.ts";

/**
 * For an API process whose projections run elsewhere (cluster profile): watches their saved
 * checkpoints until they pass the position, or gives up after the timeout.
 */
export function waitForCheckpoints(checkpoints: Checkpoints, allNames: string[], timeoutMs = 5000): WaitForProjections {
  return async (position, names) => {
    const deadline = Date.now() + timeoutMs;
    for (const name of names ?? allNames) {
      while ((await checkpoints.load(checkpointId(name))) < position) {
        if (Date.now() > deadline) throw new Error(`projection ${name} did not reach position ${position} within ${timeoutMs} ms`);
        await Bun.sleep(10);
      }
    }
  };
}
