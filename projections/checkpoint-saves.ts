import type { Projection } from "../src/core/projection.ts";
import { LeaseFencedError } from "../src/core/lease.ts";
import { logger } from "../src/logging/logger.ts";
import { checkpointId, type Checkpoints } from "./checkpoints.ts";

const log = logger("projections");

/** How often a projection busy with one event says so in its saved checkpoint (beatWhileApplying). */
export const WORKING_BEAT_MS = 1_000;

/** What the saves read of a running projection: how far it got, and its pending save. */
export type SavedProgress = { readonly projection: Projection; readonly processed: number; saveTimer: Timer | null };

/**
 * The runner's checkpoint saves: shortly after the last event (coalesced under load), and a beat while one event
 * takes long. A save refused for a later epoch (LeaseFencedError) goes to `fencedOut`; other failures are logged,
 * and the next save tries again.
 */
export class CheckpointSaves {
  constructor(
    private readonly checkpoints: Checkpoints,
    private readonly fencedOut: (error: LeaseFencedError) => void,
  ) {}

  /** Saves the projection's position 10 ms from now, unless a save is already on its way. */
  schedule(running: SavedProgress): void {
    if (running.saveTimer) return;
    running.saveTimer = setTimeout(() => {
      running.saveTimer = null;
      this.save(running, undefined, "checkpoint not saved");
    }, 10);
  }

  /**
   * While an event takes long to apply (a maximal transcript indexed for search: seconds), its checkpoint is
   * saved again each WORKING_BEAT_MS with a beat counted up, so API processes waiting on the saved checkpoints
   * (wait.ts) see the work going on rather than a projection standing still. Clear the returned timer when done.
   */
  beatWhileApplying(running: SavedProgress): Timer {
    let beat = 0;
    return setInterval(() => this.save(running, ++beat, "checkpoint beat not saved"), WORKING_BEAT_MS);
  }

  private save(running: SavedProgress, beat: number | undefined, failed: string): void {
    const { projection, processed } = running;
    this.checkpoints.save(checkpointId(projection.name), processed, projection.version, beat).catch((error: unknown) => {
      if (error instanceof LeaseFencedError) return this.fencedOut(error);
      log.warn({ projection: projection.name, position: processed, err: error }, failed);
    });
  }
}
