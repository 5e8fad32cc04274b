import type { Projection } from "../src/core/projection.ts";
import type { DocumentStore } from "../src/readmodels/port.ts";
import { LeaseFencedError } from "../src/core/lease.ts";
import { logger } from "../src/logging/logger.ts";
import { replayRequests } from "./rebuild.ts";

const log = logger("projections");

/** How often the writer looks for shadows that a `bun run replay` built beside it. */
export const REPLAY_POLL_MS = 250;

/**
 * Swaps in the shadows a `bun run replay` built while this process was the writer (see src/cli/replay.ts). A
 * request whose swap fails is marked failed, except when this process was fenced out (LeaseFencedError, thrown
 * on): the request then stays ready for the process that holds the lease now.
 */
export async function takeReadyReplays(
  db: DocumentStore,
  projections: readonly Projection[],
  swapIn: (projection: Projection, shadowPosition: number) => Promise<void>,
): Promise<void> {
  const requests = replayRequests(db);
  for (const request of await requests.find({ state: "ready" })) {
    const projection = projections.find((p) => p.name === request._id);
    if (!projection) continue;
    try {
      await swapIn(projection, request.position);
      await requests.updateOne({ _id: request._id, state: "ready" }, { $set: { state: "done" } });
      log.info({ projection: projection.name, position: request.position }, "the replayed read model is in service");
    } catch (error) {
      if (error instanceof LeaseFencedError) throw error;
      await requests.updateOne({ _id: request._id }, { $set: { state: "failed", message: error instanceof Error ? error.message : String(error) } });
      throw error;
    }
  }
}

/** Runs `take` every REPLAY_POLL_MS, one run at a time; stopping waits for the run in progress. */
export function pollReplays(take: () => Promise<void>): { stop(): Promise<void> } {
  let taking: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    taking = taking.then(take).catch((error: unknown) => log.error({ err: error }, "taking a replay in failed"));
  }, REPLAY_POLL_MS);
  return {
    async stop() {
      clearInterval(timer);
      await taking;
    },
  };
}
