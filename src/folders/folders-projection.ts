import type { Projection, ProjectedDocument } from "../core/projection.ts";
import { positionGuarded } from "../core/projection.ts";
import type { FolderEvent } from "./decider.ts";
import { userIdOfStream } from "../accounts/events.ts";

/** The `folders` read model: one document per folder; task counts are counted in `tasks` when asked. */
export type FolderFields = { id: number; userId: number; name: string; createdAt: string };
export type FolderDocument = ProjectedDocument & FolderFields;

export const foldersProjection: Projection = {
  name: "folders",
  collections: ["folders"],
  eventTypes: ["FolderCreated", "FolderRenamed", "FolderDeleted"],
  async setup(db) {
    await db.collection("folders").createIndex({ userId: 1, name: 1 });
  },
  apply: positionGuarded<FolderFields>({
    collection: "folders",
    documentId: (event) => String((event.data as FolderEvent["data"]).folderId),
    evolve: (doc, recorded) => {
      const event = recorded as unknown as FolderEvent;
      const userId = userIdOfStream(recorded.streamName);
      if (userId === null) return doc;
      switch (event.type) {
        case "FolderCreated":
          return { id: event.data.folderId, userId, name: event.data.name, createdAt: recorded.time };
        case "FolderRenamed":
          return doc && { ...doc, name: event.data.name };
        case "FolderDeleted":
          return null;
      }
    },
  }),
};
