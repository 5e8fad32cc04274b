/** The exports capability: its service and routes, its read model, and the worker that renders pdf and docx. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { OriginOf } from "../http/request-origin.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import { exportsProjection } from "./exports-projection.ts";
import { exportSettings } from "./settings.ts";

type ExportsApiParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore; blobs: BlobStore };
  tasks: Tasks;
  waitForProjections: WaitForProjections;
  authenticated: Authenticated;
  originOf: OriginOf;
};

export const capability: Capability<
  ExportsApiParts,
  { adapters: { eventStore: EventStore; blobs: BlobStore; transcripts: TranscriptStore }; config: { exportsAheadOfTime: boolean } },
  typeof exportSettings
> = {
  name: "exports",
  settings: exportSettings,
  projections: [exportsProjection],
  routes: async ({ adapters, tasks, authenticated, originOf, waitForProjections }) => {
    const [{ Exports }, { exportRoutes }] = await Promise.all([import("./service.ts"), import("./routes.ts")]);
    const exports = new Exports(adapters.documents, adapters.blobs, tasks, undefined, waitForProjections);
    return [exportRoutes({ exports, authenticated, originOf })];
  },
  // The renderers (pdf-lib, docx) load with the worker, not with the list.
  workers: async ({ adapters, config }) => [
    (await import("./export-worker.ts")).exportWorker(adapters.eventStore, adapters.blobs, adapters.transcripts, { aheadOfTime: config.exportsAheadOfTime }),
  ],
};
