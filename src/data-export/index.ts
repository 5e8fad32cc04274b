/** The data export: a copy of everything an account holds, as one zip (`GET /api/user/export`). */
import type { Capability } from "../core/capability.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { QueueOf, RetentionSetting } from "../accounts/user-view.ts";
import type { Tasks } from "../tasks/service.ts";

type DataExportApiParts = {
  adapters: { documents: DocumentStore; blobs: BlobStore };
  config: { publicUrl: string };
  tasks: Tasks;
  queueOf: QueueOf;
  retention: RetentionSetting;
  authenticated: Authenticated;
};

export const capability: Capability<DataExportApiParts> = {
  name: "data-export",
  // Nothing of its own to project: it reads the accounts', tasks' and folders' read models, and the blobs.
  projections: [],
  routes: async ({ adapters, config, tasks, queueOf, retention, authenticated }) => {
    const [{ DataExports }, { dataExportRoutes }, { userView }] = await Promise.all([
      import("./service.ts"),
      import("./routes.ts"),
      import("../accounts/user-view.ts"),
    ]);
    const exports = new DataExports({
      db: adapters.documents,
      blobs: adapters.blobs,
      tasks,
      // The profile exactly as GET /api/user shows it.
      profileOf: (user) => userView(queueOf, retention, config.publicUrl, user),
    });
    return [dataExportRoutes({ exports, authenticated })];
  },
};
