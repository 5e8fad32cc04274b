import type { AnyElysia } from "elysia";
import type { Config } from "../config.ts";
import type { Adapters } from "../adapters.ts";
import type { WaitForProjections } from "../core/projection.ts";
import { Tasks } from "./service.ts";
import { taskRoutes } from "./routes.ts";
import { shareRoutes } from "./share-routes.ts";
import { historyRoutes } from "./history-routes.ts";
import { Folders } from "../folders/service.ts";
import { folderRoutes } from "../folders/routes.ts";
import { Exports } from "../exports/service.ts";
import { exportRoutes } from "../exports/routes.ts";
import { audioRoutes } from "./audio-routes.ts";
import { Uploads } from "../uploads/service.ts";
import { uploadRoutes } from "../uploads/routes.ts";
import { transcriptionFeature } from "../transcription/feature.ts";

/** Wires tasks and folders: their services and routes behind the accounts' authentication. */
export function taskFeatures(config: Config, adapters: Adapters, waitFor: WaitForProjections, authenticated: AnyElysia): AnyElysia[] {
  const tasks = new Tasks(adapters.eventStore, adapters.documents, waitFor, adapters.transcripts);
  const folders = new Folders(adapters.eventStore, adapters.documents, waitFor);
  return [
    taskRoutes({ tasks, authenticated }),
    shareRoutes({ tasks, db: adapters.documents, publicUrl: config.publicUrl, authenticated }),
    historyRoutes({ tasks, db: adapters.documents, authenticated }),
    folderRoutes({ folders, authenticated }),
    exportRoutes({ exports: new Exports(adapters.eventStore, adapters.documents, adapters.blobs, tasks), authenticated }),
    uploadRoutes({ uploads: new Uploads(adapters.eventStore, adapters.blobs, tasks), authenticated }),
    audioRoutes({ tasks, blobs: adapters.blobs, fileBlobs: adapters.fileBlobs, authenticated }),
    transcriptionFeature(config, adapters, tasks, waitFor, authenticated),
  ];
}
