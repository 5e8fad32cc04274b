import type { Projection, ProjectedDocument } from "../core/projection.ts";
import { positionGuarded } from "../core/projection.ts";
import { folderEventTypes, type FolderEvent } from "./events.ts";
import { userIdOf, type UserEvent } from "../accounts/events.ts";

type AccountErased = Extract<UserEvent, { type: "AccountErased" }>;

/** The `folders` read model: one document per folder; task counts are counted in `tasks` when asked. */
export type FolderFields = { id: number; userId: number; name: string; createdAt: string };
export type FolderDocument = ProjectedDocument & FolderFields;

const applyFolderEvent = positionGuarded<FolderFields, FolderEvent>({
  collection: "folders",
  documentId: (event) => String(event.data.folderId),
  evolve: (doc, event) => {
    const userId = userIdOf(event);
    if (userId === null) return doc;
    switch (event.type) {
      case "FolderCreated":
        return { id: event.data.folderId, userId, name: event.data.name, createdAt: event.time };
      case "FolderRenamed":
        return doc && { ...doc, name: event.data.name };
      case "FolderDeleted":
        return null;
    }
  },
});

export const foldersProjection: Projection<FolderEvent | AccountErased> = {
  name: "folders",
  collections: ["folders"],
  eventTypes: [...folderEventTypes, "AccountErased"],
  async setup(db) {
    await db.collection("folders").createIndex({ userId: 1, name: 1 });
  },
  // An erased account's folders go with it (src/erasure); deleting again on a redelivery changes nothing.
  async apply(event, db) {
    if (event.type !== "AccountErased") return applyFolderEvent(event, db);
    const userId = userIdOf(event);
    if (userId !== null) await db.collection<FolderDocument>("folders").deleteMany({ userId });
  },
};
