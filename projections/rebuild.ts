import type { RecordedEvent } from "../src/core/event.ts";
import type { EventStore } from "../src/core/event-store.ts";
import type { Document, DocumentStore } from "../src/readmodels/port.ts";
import { checkpointId, type Checkpoints } from "./checkpoints.ts";
import { declaredBy, noProjectionContext, type Projection, type ProjectionContext } from "../src/core/projection.ts";

/**
 * Rebuilding a read model beside the live one: the projection folds the whole log into shadow
 * collections (`<name>__rebuild`) while readers keep reading the live ones, and the writer then catches
 * the shadows up and swaps them in at once (DocumentStore.replaceCollections). Nobody ever reads an
 * emptied or half-built model.
 */
export const shadowName = (collection: string) => `${collection}__rebuild`;

/** The store as the projection being rebuilt sees it: its own collections are the shadows, the rest as they are. */
export function shadowStore(db: DocumentStore, projection: Projection): DocumentStore {
  const own = new Set(projection.collections);
  const name = (collection: string) => (own.has(collection) ? shadowName(collection) : collection);
  return {
    collection: <T extends Document = Document>(collection: string) => db.collection<T>(name(collection)),
    changeStamp: (collections) => db.changeStamp(collections.map(name)),
    replaceCollections: (pairs) => db.replaceCollections(pairs),
    dropCollection: (collection) => db.dropCollection(name(collection)),
    close: async () => {},
  };
}

/** Folds the events after `after` into the projection through `db`, to the end of the log. */
export async function foldLog(
  store: EventStore,
  db: DocumentStore,
  projection: Projection,
  after: number,
  context: ProjectionContext = noProjectionContext,
): Promise<{ position: number; events: number }> {
  const declared = declaredBy(projection);
  let position = after;
  let events = 0;
  for (;;) {
    const batch: RecordedEvent[] = await store.readAll({ after: position, limit: 1000 });
    if (batch.length === 0) return { position, events };
    for (const event of batch) {
      if (declared(event)) await projection.apply(event, db, context);
      position = event.position;
      events++;
    }
  }
}

/** Builds the projection's shadow collections afresh from the whole log; the live ones are not touched. */
export async function buildShadow(
  store: EventStore,
  db: DocumentStore,
  projection: Projection,
  context: ProjectionContext = noProjectionContext,
): Promise<{ position: number; events: number }> {
  for (const collection of projection.collections) await db.dropCollection(shadowName(collection));
  const shadow = shadowStore(db, projection);
  await projection.setup?.(shadow);
  return foldLog(store, shadow, projection, 0, context);
}

/**
 * Catches the shadow up from `shadowPosition` to the end of the log, swaps it in for the live collections
 * and saves the checkpoint there. Only the projection's writer may call it, with its subscription stopped.
 * Under a lease (fenced `checkpoints`) the checkpoint is claimed for the writer's epoch just before the swap:
 * a writer that lost the lease meanwhile is refused (LeaseFencedError) before it replaces the live model that
 * the new holder writes. That leaves one store call (the swap) between the fence and the write it guards.
 */
export async function swapShadowIn(
  store: EventStore,
  db: DocumentStore,
  checkpoints: Checkpoints,
  projection: Projection,
  shadowPosition: number,
  context: ProjectionContext = noProjectionContext,
): Promise<number> {
  const { position } = await foldLog(store, shadowStore(db, projection), projection, shadowPosition, context);
  await checkpoints.claim(checkpointId(projection.name));
  await db.replaceCollections(projection.collections.map((target) => ({ target, source: shadowName(target) })));
  await checkpoints.save(checkpointId(projection.name), position, projection.version);
  return position;
}

/**
 * A shadow built by a `bun run replay` while another process is the projections' writer, waiting for that
 * writer to swap it in (the `replays` collection, one document per projection).
 */
export type ReplayRequest = Document & { state: "ready" | "done" | "failed"; position: number; requestedAt: string; message?: string };

export const replayRequests = (db: DocumentStore) => db.collection<ReplayRequest>("replays");
