import type { RecordedEvent } from "./event.ts";
import type { Document, DocumentStore } from "../readmodels/port.ts";

/**
 * A read model built from the log. `apply` must be idempotent under redelivery: the runner saves its
 * checkpoint only now and then, so after a restart the last few events arrive again.
 * `positionGuarded` below gives that for free to documents updated one event at a time.
 */
export type Projection = {
  name: string;
  /** The collections it owns: emptied when it is rebuilt. */
  collections: readonly string[];
  /** Only these event types reach `apply`; the others just move the checkpoint. */
  eventTypes: readonly string[];
  /**
   * The shape of its documents: raise it when `apply` starts writing something the existing documents
   * lack, and the runner rebuilds this projection from the log on its next start. 1 when absent.
   */
  version?: number;
  /** Indexes and the like; runs before the first event and again after a rebuild. */
  setup?(db: DocumentStore): Promise<void>;
  apply(event: RecordedEvent, db: DocumentStore): Promise<void>;
};

/**
 * A read-model document remembers the log position of the last event folded into it. Describe a
 * document's own fields as a plain type `F` and store `ProjectedDocument & F`.
 */
export type ProjectedDocument = Document & { _position: number };

/**
 * Folds events into one document per key. An event at or below the document's `_position` was applied
 * before (redelivery), so it is skipped. Returning null from `evolve` deletes the document.
 */
export function positionGuarded<Fields extends object>(options: {
  collection: string;
  documentId: (event: RecordedEvent) => string | null;
  evolve: (document: Fields | null, event: RecordedEvent) => Fields | null;
}): (event: RecordedEvent, db: DocumentStore) => Promise<void> {
  type T = ProjectedDocument & Fields;
  return async (event, db) => {
    const id = options.documentId(event);
    if (id === null) return;
    const collection = db.collection<T>(options.collection);
    const current = await collection.findOne({ _id: id });
    if (current && current._position >= event.position) return;
    const next = options.evolve(current, event);
    if (next === null) {
      await collection.deleteOne({ _id: id });
      return;
    }
    await collection.replaceOne({ _id: id }, { ...next, _id: id, _position: event.position } as T, { upsert: true });
  };
}

/** Resolves once the read models (the named ones, or all) have folded the log up to `position`: read-your-writes. */
export type WaitForProjections = (position: number, names?: string[]) => Promise<void>;
