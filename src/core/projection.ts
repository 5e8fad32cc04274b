import type { DomainEvent } from "./decider.ts";
import { isOneOf, type Recorded, type RecordedEvent } from "./event.ts";
import { DuplicateKeyError, type Collection, type Document, type DocumentStore, type Filter } from "../readmodels/port.ts";

/** A transcript's segment as projections read it (src/tasks/segments.ts has the whole shape). */
export type TranscriptSegment = { id: number; start: number; end: number; text: string; speaker: string | null };

/** Loads the transcript an event refers to by reference (the tasks capability's TranscriptStore). */
export type TranscriptReader = { load(ref: { key: string; sha256: string }): Promise<readonly TranscriptSegment[]> };

/**
 * What a projection may read besides the events and its read models: the transcripts events refer to, which
 * are blobs (the search index reads what TaskFinished and TranscriptEdited name). Null where a process opened
 * no blob store; a projection that needs them then fails loudly rather than build a read model without them.
 */
export type ProjectionContext = { transcripts: TranscriptReader | null };

export const noProjectionContext: ProjectionContext = { transcripts: null };

/**
 * A read model built from the log. `apply` must be idempotent under redelivery: the runner saves its
 * checkpoint only now and then, so after a restart the last few events arrive again.
 *
 * One scheme for that everywhere: every document remembers the log position of the last event folded
 * into it (`_position`), an event at or below it is skipped, and the write is a compare-and-set on the
 * position read. `positionGuarded` below is that for documents changed one event at a time (a document
 * per event too: keyed by the event's id); the few writes that change many documents at once (a folder
 * renamed, notifications read) match only documents below the event's position.
 */
export type Projection<E extends DomainEvent = DomainEvent> = {
  name: string;
  /** The collections it owns: emptied when it is rebuilt. */
  collections: readonly string[];
  /** Only these event types reach `apply` (the runner checks), so `apply` sees members of `E`; the others just move the checkpoint. */
  eventTypes: readonly E["type"][];
  /**
   * The shape of its documents: raise it when `apply` starts writing something the existing documents
   * lack, and the runner rebuilds this projection from the log on its next start. 1 when absent.
   */
  version?: number;
  /**
   * At most this long a write's answer waits for this read model to show it; past that the answer goes and the read
   * model follows. Absent: the answer waits until it shows the write. For a read model whose work grows with what
   * was written (search indexes every segment of a transcript: about 20 s for 100,000), so that a large write is
   * answered when its task can be read, not when its last word can be searched.
   */
  answerWaitMs?: number;
  /** Indexes and the like; runs before the first event and again after a rebuild. */
  setup?(db: DocumentStore): Promise<void>;
  /** `context` absent: as noProjectionContext (what tests that fold events by hand give). */
  apply(event: Recorded<E>, db: DocumentStore, context?: ProjectionContext): Promise<void>;
};

/**
 * Whether an event from the log is one of the projection's `eventTypes`, and so a member of its union: the one
 * check that lets a typed projection's `apply` see it (the runner, a rebuild and a replay all fold through it).
 */
export function declaredBy(projection: Projection): (event: RecordedEvent) => boolean {
  return isOneOf(projection.eventTypes);
}

/** Folds one `event` into the projection when it is one of its types (declaredBy), as tests folding by hand do; false when not. */
export async function applyDeclared(projection: Projection, event: RecordedEvent, db: DocumentStore, context?: ProjectionContext): Promise<boolean> {
  if (!declaredBy(projection)(event)) return false;
  await projection.apply(event, db, context);
  return true;
}

/**
 * A read-model document remembers the log position of the last event folded into it. Describe a
 * document's own fields as a plain type `F` and store `ProjectedDocument & F`.
 */
export type ProjectedDocument = Document & { _position: number };

/**
 * Folds events into one document per key. An event at or below the document's `_position` was applied
 * before (redelivery), so it is skipped. Returning null from `evolve` deletes the document.
 *
 * The write is a compare-and-set on the `_position` that was read (an insert when there was no document):
 * if another writer changed the document in between — a replay's catch-up next to a writer whose lease
 * just lapsed — the event is folded again into what is there now, never written over it.
 */
export function positionGuarded<Fields extends object, E extends DomainEvent = DomainEvent>(options: {
  collection: string;
  documentId: (event: Recorded<E>) => string | null;
  evolve: (document: Fields | null, event: Recorded<E>) => Fields | null;
}): (event: Recorded<E>, db: DocumentStore) => Promise<void> {
  type T = ProjectedDocument & Fields;
  return async (event, db) => {
    const id = options.documentId(event);
    if (id === null) return;
    const collection = db.collection<T>(options.collection);
    for (let attempt = 1; ; attempt++) {
      const current = await collection.findOne({ _id: id });
      if (current && current._position >= event.position) return;
      const next = options.evolve(current, event);
      const document = next && ({ ...next, _id: id, _position: event.position } as T);
      if (await compareAndSet(collection, id, current?._position ?? null, document)) return;
      if (attempt >= 10) throw new Error(`${options.collection}/${id}: still changing under event ${event.position} after ${attempt} attempts`);
    }
  };
}

/**
 * Writes `document` (or deletes, for null) only if the stored one is still at `expected` (null: absent);
 * false when another writer got there first. The one write every projection makes to a positioned
 * document, directly or through positionGuarded.
 */
export async function compareAndSet<T extends ProjectedDocument>(
  collection: Collection<T>,
  id: string,
  expected: number | null,
  document: T | null,
): Promise<boolean> {
  if (expected === null) {
    if (document === null) return true;
    try {
      await collection.insertOne(document);
      return true;
    } catch (error) {
      // Someone inserted it first: fold again. A unique index that refused it is the projection's error.
      if (error instanceof DuplicateKeyError && (await collection.findOne({ _id: id } as Filter)) !== null) return false;
      throw error;
    }
  }
  const guard = { _id: id, _position: expected };
  if (document === null) return (await collection.deleteOne(guard)).deletedCount > 0;
  return (await collection.replaceOne(guard, document)).matchedCount > 0;
}

/**
 * Resolves once the read models (the named ones, or all) have folded the log up to `position`: read-your-writes.
 * `withinMs`: gives up (rejects) after that long, instead of the default patience (projections/patience.ts).
 */
export type WaitForProjections = (position: number, names?: string[], withinMs?: number) => Promise<void>;
