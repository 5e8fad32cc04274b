/** The uploads capability: its service and routes, its read model, the worker that finishes completions, and the job that clears abandoned uploads. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Idempotency } from "../http/idempotency.ts";
import type { OriginOf } from "../http/request-origin.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "../tasks/service.ts";
import { uploadsProjection } from "./uploads-projection.ts";

type UploadsWorkParts = { adapters: { eventStore: EventStore; documents: DocumentStore; blobs: BlobStore }; tasks: Tasks };

type UploadsApiParts = UploadsWorkParts & { authenticated: Authenticated; idempotency: Idempotency; originOf: OriginOf };

const uploadsOf = async ({ adapters, tasks }: UploadsWorkParts) => new (await import("./service.ts")).Uploads(adapters.eventStore, adapters.blobs, tasks);

export const capability: Capability<UploadsApiParts, UploadsWorkParts> = {
  name: "uploads",
  projections: [uploadsProjection],
  routes: async (parts) => {
    const { uploadRoutes } = await import("./routes.ts");
    return [uploadRoutes({ uploads: await uploadsOf(parts), authenticated: parts.authenticated, idempotency: parts.idempotency, originOf: parts.originOf })];
  },
  workers: async (parts) => [(await import("./upload-completion-worker.ts")).uploadCompletionWorker(await uploadsOf(parts))],
  jobs: async (parts) => [
    (await import("./upload-cleanup-job.ts")).startUploadCleanupJob(await uploadsOf(parts), parts.adapters.documents, parts.adapters.blobs),
  ],
};
