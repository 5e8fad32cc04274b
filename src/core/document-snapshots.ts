import type { Document, DocumentStore } from "../readmodels/port.ts";
import type { Snapshot, SnapshotStore } from "./state-cache.ts";

type SnapshotDocument = Document & Snapshot;

/**
 * Snapshots kept in the read-model store's `snapshots` collection. Like read models they are
 * disposable (the log stays the truth), so no projection owns the collection and a replay keeps it.
 */
export class DocumentSnapshots implements SnapshotStore {
  constructor(private readonly db: DocumentStore) {}

  private get snapshots() {
    return this.db.collection<SnapshotDocument>("snapshots");
  }

  async load(key: string): Promise<Snapshot | null> {
    const found = await this.snapshots.findOne({ _id: key });
    return found && { revision: found.revision, eventId: found.eventId, state: found.state };
  }

  async save(key: string, snapshot: Snapshot): Promise<void> {
    await this.snapshots.replaceOne({ _id: key }, { _id: key, ...snapshot }, { upsert: true });
  }
}
