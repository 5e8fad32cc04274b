import type { Projection } from "../../src/core/projection.ts";
import { positionGuarded, type ProjectedDocument } from "../../src/core/projection.ts";

type CounterFields = { value: number; increments: number };
export type CounterView = ProjectedDocument & CounterFields;

/** A read model of the test counters: one document per stream, idempotent through `_position`. */
export const counterProjection: Projection = {
  name: "counters",
  collections: ["counters"],
  eventTypes: ["CounterOpened", "CounterIncremented"],
  apply: positionGuarded<CounterFields>({
    collection: "counters",
    documentId: (event) => event.streamName,
    evolve: (doc, event) =>
      event.type === "CounterOpened"
        ? { value: 0, increments: 0 }
        : { value: (doc?.value ?? 0) + (event.data as { by: number }).by, increments: (doc?.increments ?? 0) + 1 },
  }),
};
