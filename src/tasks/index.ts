/** The tasks capability: its service and routes, its read models, and the workers that move its tasks on. */
import type { Projection } from "../core/projection.ts";
import type { Worker } from "../core/worker.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { MediaFetchSettings } from "../media/fetch-media.ts";
import { defaultMediaFetchSettings } from "../media/fetch-media.ts";
import { tasksProjection } from "./tasks-projection.ts";
import { taskHistoryProjection } from "./task-history-projection.ts";
import { taskSlotsProjection } from "./slots-projection.ts";
import { taskSlotWorker } from "./task-slots-worker.ts";
import { fetchMediaWorker } from "./fetch-media-worker.ts";
import { taskMediaWorker } from "./task-media-worker.ts";
import { taskTranscriptsWorker } from "./task-transcripts-worker.ts";

export { Tasks } from "./service.ts";
export { folderTaskCounts, queueCounts, tasksByStatus } from "./task-counts.ts";
export { taskRoutes } from "./routes.ts";
export { shareRoutes, type AppPage } from "./share-routes.ts";
export { historyRoutes } from "./history-routes.ts";
export { audioRoutes } from "./audio-routes.ts";

export const projections: Projection[] = [tasksProjection, taskHistoryProjection, taskSlotsProjection];

export function workers({
  eventStore,
  blobs,
  documents,
  mediaFetch,
}: {
  eventStore: EventStore;
  blobs: BlobStore;
  documents: DocumentStore;
  mediaFetch?: MediaFetchSettings;
}): Worker[] {
  return [
    taskSlotWorker(eventStore),
    fetchMediaWorker(eventStore, blobs, mediaFetch ?? defaultMediaFetchSettings),
    taskMediaWorker(eventStore, blobs, documents),
    taskTranscriptsWorker(eventStore, blobs, documents),
  ];
}
