import { expect } from "bun:test";
import type { RecordedEvent } from "../../src/core/event.ts";
import type { Projection } from "../../src/core/projection.ts";
import type { Document } from "../../src/readmodels/port.ts";
import { EmbeddedDocumentStore } from "../../src/readmodels/embedded.ts";

export type GivenEvent = { streamName: string; type: string; data: unknown; time?: string };

/**
 * given(events).then(documents) for projections, on a fresh in-memory store:
 *   projectionSpec(foldersProjection).given([{ streamName: "user-1", type: "FolderCreated", data: {...} }]).then({ folders: [...] })
 * `then` also delivers every event a second time, in order (what a restart after an unsaved checkpoint
 * does), and asserts that the documents did not change: a redelivered event changes nothing.
 */
export function projectionSpec(projection: Projection) {
  return {
    given(given: GivenEvent[]) {
      const revisions = new Map<string, number>();
      const events: RecordedEvent[] = given.map((event, i) => {
        const revision = revisions.get(event.streamName) ?? 0;
        revisions.set(event.streamName, revision + 1);
        return {
          id: crypto.randomUUID(),
          type: event.type,
          data: event.data as RecordedEvent["data"],
          metadata: { correlationId: "spec", causationId: null, userId: null, system: "test" },
          streamName: event.streamName,
          revision,
          position: i + 1,
          time: event.time ?? new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
        };
      });
      return {
        async then(expected: Record<string, Document[]>): Promise<void> {
          const db = new EmbeddedDocumentStore(":memory:");
          try {
            await projection.setup?.(db);
            const types = new Set(projection.eventTypes);
            const deliver = async () => {
              for (const event of events) if (types.has(event.type)) await projection.apply(event, db);
            };
            const documents = async () =>
              Object.fromEntries(
                await Promise.all(projection.collections.map(async (name) => [name, await db.collection(name).find({}, { sort: { _id: 1 } })] as const)),
              );
            await deliver();
            const folded = await documents();
            expect(folded).toMatchObject(expected);
            await deliver();
            expect(await documents()).toEqual(folded);
          } finally {
            await db.close();
          }
        },
      };
    },
  };
}
