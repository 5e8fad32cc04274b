import { expect } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";
import { ProjectionRunner } from "../../projections/runner.ts";
import { allProjections } from "../../projections/index.ts";
import { FileBlobStore } from "../../src/blobs/filesystem.ts";
import type { BlobStore } from "../../src/blobs/port.ts";
import { TranscriptStore } from "../../src/tasks/transcripts.ts";
import { storedEventsOf } from "./stored-events.ts";

/** The read models the projections keep (leases, checkpoints and counters aside). */
const projected = [
  "tasks",
  "transcripts",
  "task_counts",
  "users",
  "credentials",
  "notifications",
  "folders",
  "task_history",
  "uploads",
  "search_tasks",
  "search_segments",
  "task_slots",
  "dead_letters",
];

/**
 * The read models of an embedded DATA_DIR equal a replay of its log into fresh ones, collection by
 * collection. No process may be writing `dataDir` meanwhile, and its projections must have folded the whole log.
 * `blobStore`: where the service kept its blobs, when not in DATA_DIR (a cluster on S3).
 */
export async function expectReadModelsEqualReplay(dataDir: string, blobStore?: BlobStore): Promise<void> {
  const live = new EmbeddedDocumentStore(join(dataDir, "readmodels.sqlite"));
  const replayDir = mkdtempSync(join(tmpdir(), "scribe-replay-"));
  const fresh = new EmbeddedDocumentStore(join(replayDir, "readmodels.sqlite"));
  const store = storedEventsOf(dataDir);
  // The search read model reads transcripts from the blobs: the cluster's S3 when given, else DATA_DIR's files
  // (only read here: the URL and secret sign nothing).
  const blobs = blobStore ?? new FileBlobStore({ root: join(dataDir, "blobs"), publicUrl: "http://localhost", secret: "replay" });
  try {
    await new ProjectionRunner(store, fresh, allProjections, () => true, { transcripts: new TranscriptStore(blobs) }).rebuild();
    for (const collection of projected) {
      const rows = async (db: EmbeddedDocumentStore) => db.collection(collection).find({}, { sort: { _id: 1 } });
      expect({ collection, rows: await rows(live) }).toEqual({ collection, rows: await rows(fresh) });
    }
  } finally {
    await store.close();
    if (!blobStore) await blobs.close();
    await live.close();
    await fresh.close();
    rmSync(replayDir, { recursive: true, force: true });
  }
}
