/** The folders capability: its service, routes and read model. */
import type { Projection } from "../core/projection.ts";
import { foldersProjection } from "./folders-projection.ts";

export { Folders } from "./service.ts";
export { folderRoutes } from "./routes.ts";

export const projections: Projection[] = [foldersProjection];
