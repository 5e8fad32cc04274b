/** The exports capability: its service and routes, its read model, and the worker that renders pdf and docx. */
import type { Projection } from "../core/projection.ts";
import type { Worker } from "../core/worker.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { TranscriptStore } from "../tasks/transcripts.ts";
import { exportsProjection } from "./exports-projection.ts";
import { exportWorker } from "./export-worker.ts";

export { Exports } from "./service.ts";
export { exportRoutes } from "./routes.ts";

export const projections: Projection[] = [exportsProjection];

export function workers({ eventStore, blobs, transcripts }: { eventStore: EventStore; blobs: BlobStore; transcripts: TranscriptStore }): Worker[] {
  return [exportWorker(eventStore, blobs, transcripts)];
}
