/** The retention capability: each account's `retention_days`, its read model, and the job that deletes old tasks. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Tasks } from "../tasks/service.ts";
import { retentionProjection } from "./retention-projection.ts";
import { retentionSettings } from "./settings.ts";

export { Retention } from "./service.ts";
export { retentionEventTypes, type RetentionEvent } from "./events.ts";

type RetentionWorkParts = { adapters: { eventStore: EventStore; documents: DocumentStore }; tasks: Tasks };

export const capability: Capability<unknown, RetentionWorkParts, typeof retentionSettings> = {
  name: "retention",
  settings: retentionSettings,
  projections: [retentionProjection],
  jobs: async ({ adapters, tasks }) => [(await import("./retention-job.ts")).startRetentionJob({ store: adapters.eventStore, db: adapters.documents, tasks })],
};
