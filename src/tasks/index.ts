/** The tasks capability: its service and routes, its read models, and the workers that move its tasks on. */
import type { Capability } from "../core/capability.ts";
import type { EventStore } from "../core/event-store.ts";
import type { BlobStore } from "../blobs/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { MediaFetchSettings } from "../media/fetch-media.ts";
import type { Idempotency } from "../http/idempotency.ts";
import type { OriginOf } from "../http/request-origin.ts";
import type { Authenticated } from "../accounts/authentication.ts";
import type { Tasks } from "./service.ts";
import type { AppPage } from "./share-routes.ts";
import { tasksProjection } from "./tasks-projection.ts";
import { taskHistoryProjection } from "./task-history-projection.ts";
import { taskSlotsProjection } from "./slots-projection.ts";
import { mediaFetchSettings } from "./settings.ts";

export type { Tasks } from "./service.ts";
export { folderTaskCounts, queueCounts, tasksByStatus } from "./task-counts.ts";
export type { AppPage } from "./share-routes.ts";
export { TaskCommands, taskIdOf, type TaskCommand } from "./commands.ts";

/**
 * The tasks' service, whose commands the other capabilities call: loaded when a role starts, for the command-line
 * tools read this index for its projections, and must not load the service to do so.
 */
export async function tasksService(...args: ConstructorParameters<typeof Tasks>): Promise<Tasks> {
  return new (await import("./service.ts")).Tasks(...args);
}

type TasksApiParts = {
  adapters: { documents: DocumentStore; blobs: BlobStore };
  config: { publicUrl: string };
  /** A key derived from the service's secret for one use: the audio URLs', so every API replica verifies them. */
  keyFor(label: string): string;
  tasks: Tasks;
  authenticated: Authenticated;
  idempotency: Idempotency;
  /** The address a caller reached the API at, which the URLs it uses at once name; links that leave name PUBLIC_URL. */
  originOf: OriginOf;
  /** The web app's page, which a browser opening a share link gets. */
  appPage?: AppPage;
};

type TasksWorkParts = {
  adapters: { eventStore: EventStore; documents: DocumentStore; blobs: BlobStore };
  config: { mediaFetch: MediaFetchSettings };
};

export const capability: Capability<TasksApiParts, TasksWorkParts, typeof mediaFetchSettings> = {
  name: "tasks",
  settings: mediaFetchSettings,
  projections: [tasksProjection, taskHistoryProjection, taskSlotsProjection],
  routes: async ({ adapters, config, keyFor, tasks, authenticated, idempotency, originOf, appPage }) => {
    const [{ taskRoutes }, { shareRoutes }, { historyRoutes }, { audioRoutes }] = await Promise.all([
      import("./routes.ts"),
      import("./share-routes.ts"),
      import("./history-routes.ts"),
      import("./audio-routes.ts"),
    ]);
    const { documents: db, blobs } = adapters;
    // One key for the audio URLs of the owner and of the share page, whose MACs are labelled apart (audio-url.ts).
    const urlKey = keyFor("audio-url");
    return [
      taskRoutes({ tasks, authenticated, idempotency }),
      shareRoutes({ tasks, db, blobs, urlKey, publicUrl: config.publicUrl, originOf, authenticated, appPage }),
      historyRoutes({ tasks, db, authenticated }),
      audioRoutes({ tasks, blobs, authenticated, urlKey, originOf }),
    ];
  },
  workers: async ({ adapters: { eventStore, blobs, documents }, config }) => {
    const [{ taskSlotWorker }, { fetchMediaWorker }, { taskMediaWorker }, { taskTranscriptsWorker }] = await Promise.all([
      import("./task-slots-worker.ts"),
      import("./fetch-media-worker.ts"),
      import("./task-media-worker.ts"),
      import("./task-transcripts-worker.ts"),
    ]);
    return [
      taskSlotWorker(eventStore),
      fetchMediaWorker(eventStore, blobs, config.mediaFetch),
      taskMediaWorker(eventStore, blobs, documents),
      taskTranscriptsWorker(eventStore, blobs, documents),
    ];
  },
};
