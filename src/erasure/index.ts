/** The erasure capability: an account's erasure (`DELETE /api/user`), its data keys and what keeps personal fields apart in the log. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { SignInLimits } from "../accounts/sign-in-rules.ts";
import type { OwnSite } from "../http/cross-site.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import type { DataKeyStore } from "./data-keys.ts";

/** What an account's erasure is built from, in the api role (the request) and the workers role (the AccountErased worker). */
type ErasureParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore; blobs: BlobStore; dataKeys: DataKeyStore; transcripts: TranscriptStore };
  waitForProjections: WaitForProjections;
  tasks: Tasks;
};

type ErasureApiParts = ErasureParts & { authenticated: Authenticated; signInLimits: SignInLimits; site: OwnSite };

async function accountErasure({ adapters, waitForProjections, tasks }: ErasureParts) {
  const { AccountErasure } = await import("./account-erasure.ts");
  const { eventStore: store, documents: db, blobs, dataKeys, transcripts } = adapters;
  return new AccountErasure({ store, db, blobs, transcripts, waitFor: waitForProjections, tasks, dataKeys });
}

export const capability: Capability<ErasureApiParts, ErasureParts> = {
  name: "erasure",
  projections: [],
  routes: async (parts) => {
    const [erasure, { erasureRoutes }] = await Promise.all([accountErasure(parts), import("./routes.ts")]);
    const { adapters, authenticated, signInLimits, site } = parts;
    return [erasureRoutes({ erasure, db: adapters.documents, authenticated, signInLimits, site })];
  },
  workers: async (parts, others) => {
    const { eventStore: store, dataKeys: keys, documents } = parts.adapters;
    const [{ taskErasureWorker }, { accountErasureWorker }, erasure] = await Promise.all([
      import("./task-erasure-worker.ts"),
      import("./account-erasure-worker.ts"),
      accountErasure(parts),
    ]);
    return [taskErasureWorker({ store, keys, documents }, others), accountErasureWorker(erasure)];
  },
};
