/** The uploads capability: its service and routes, its read model, and the job that clears abandoned uploads. */
import type { Projection } from "../core/projection.ts";
import { uploadsProjection } from "./uploads-projection.ts";

export { Uploads } from "./service.ts";
export { uploadRoutes } from "./routes.ts";
export { startUploadCleanupJob } from "./upload-cleanup-job.ts";

export const projections: Projection[] = [uploadsProjection];
