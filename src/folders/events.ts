/** Folders live on the account's stream `user-<id>`, so names are unique per user under parallel requests. */
export type FolderEvent =
  | { type: "FolderCreated"; data: { folderId: number; name: string } }
  | { type: "FolderRenamed"; data: { folderId: number; name: string; previousName: string } }
  | { type: "FolderDeleted"; data: { folderId: number; name: string } };

export const folderEventTypes = ["FolderCreated", "FolderRenamed", "FolderDeleted"] as const;
