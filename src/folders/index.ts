/** The folders capability: its service, routes and read model. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Idempotency } from "../http/idempotency.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { FolderTaskCounts } from "./service.ts";
import { foldersProjection } from "./folders-projection.ts";

type FoldersApiParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore };
  waitForProjections: WaitForProjections;
  /** How many tasks each folder holds (the tasks capability's read model, which folders may not import). */
  folderTaskCounts: FolderTaskCounts;
  authenticated: Authenticated;
  idempotency: Idempotency;
};

export const capability: Capability<FoldersApiParts> = {
  name: "folders",
  projections: [foldersProjection],
  routes: async ({ adapters, waitForProjections, folderTaskCounts, authenticated, idempotency }) => {
    const [{ Folders }, { folderRoutes }] = await Promise.all([import("./service.ts"), import("./routes.ts")]);
    const folders = new Folders(adapters.eventStore, adapters.documents, waitForProjections, folderTaskCounts);
    return [folderRoutes({ folders, authenticated, idempotency })];
  },
};
