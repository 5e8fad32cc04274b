/** The search capability: searching inside transcripts, and the read model it reads. */
import type { Projection } from "../core/projection.ts";
import { searchProjection } from "./search-projection.ts";

export { Search } from "./service.ts";
export { searchRoutes } from "./routes.ts";

export const projections: Projection[] = [searchProjection];
