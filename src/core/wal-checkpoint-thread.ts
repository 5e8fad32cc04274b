import { Database } from "bun:sqlite";
import { serveOnThread } from "./background-thread.ts";
import type { CheckpointJob, CheckpointResult } from "./wal-checkpoints.ts";

/**
 * The thread that checkpoints the embedded read models' WAL (wal-checkpoints.ts). A connection of its own for each
 * checkpoint, closed after it: none is left open on a file that a restore may replace, and the store's connection
 * stays the one that outlives the others (the last to close checkpoints what is left and removes the WAL).
 */
serveOnThread<CheckpointJob, CheckpointResult>(({ path }) => {
  // Never made here: a file gone meanwhile (a test's folder removed) is an error, not a new empty database.
  const db = new Database(path, { readwrite: true, create: false });
  try {
    // PASSIVE: as much as it can without waiting for readers or writers, who go on meanwhile.
    const row = db.query("PRAGMA wal_checkpoint(PASSIVE)").get() as { busy: number; log: number; checkpointed: number };
    return { walFrames: row.log, copiedFrames: row.checkpointed };
  } finally {
    db.close();
  }
});
