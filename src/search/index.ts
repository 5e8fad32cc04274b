/** The search capability: searching inside transcripts, and the read model it reads. */
import type { Capability } from "../core/capability.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import { searchProjection } from "./search-projection.ts";

export const capability: Capability<{ adapters: { documents: DocumentStore }; authenticated: Authenticated }> = {
  name: "search",
  projections: [searchProjection],
  routes: async ({ adapters, authenticated }) => {
    const [{ Search }, { searchRoutes }] = await Promise.all([import("./service.ts"), import("./routes.ts")]);
    return [searchRoutes({ search: new Search(adapters.documents), authenticated })];
  },
};
