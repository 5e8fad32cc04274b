/** The uploads capability: its service and routes, its read model, the worker that finishes completions, and the job that clears abandoned uploads. */
import type { Projection } from "../core/projection.ts";
import type { Worker } from "../core/worker.ts";
import { uploadsProjection } from "./uploads-projection.ts";
import { uploadCompletionWorker } from "./upload-completion-worker.ts";
import type { Uploads } from "./service.ts";

export { Uploads } from "./service.ts";
export { uploadRoutes } from "./routes.ts";
export { startUploadCleanupJob } from "./upload-cleanup-job.ts";

export const projections: Projection[] = [uploadsProjection];

export function workers({ uploads }: { uploads: Uploads }): Worker[] {
  return [uploadCompletionWorker(uploads)];
}
