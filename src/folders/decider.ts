import { assertNever, type Decider } from "../core/decider.ts";
import { NotFoundError, ValidationFailedError } from "../core/errors.ts";
import { folderKey } from "./name.ts";
import type { FolderEvent } from "./events.ts";

export { folderEventTypes, type FolderEvent } from "./events.ts";

export type FolderCommand =
  | { type: "CreateFolder"; folderId: number; name: string }
  | { type: "RenameFolder"; name: string; newName: string }
  | { type: "DeleteFolder"; name: string };

export type FolderState = { exists: boolean; folders: ReadonlyMap<number, string> };

const taken = () => new ValidationFailedError({ name: ["The name has already been taken."] });

function find(state: FolderState, name: string): [number, string] | undefined {
  return [...state.folders].find(([, existing]) => folderKey(existing) === folderKey(name));
}

export const folderDecider: Decider<FolderState, FolderCommand, FolderEvent> = {
  initialState: () => ({ exists: false, folders: new Map() }),
  evolve(state, event) {
    const e = event as FolderEvent | { type: "UserRegistered"; data: unknown };
    switch (e.type) {
      case "UserRegistered":
        return { ...state, exists: true };
      case "FolderCreated":
      case "FolderRenamed":
        return { ...state, folders: new Map([...state.folders, [e.data.folderId, e.data.name]]) };
      case "FolderDeleted": {
        const folders = new Map(state.folders);
        folders.delete(e.data.folderId);
        return { ...state, folders };
      }
      default:
        return state;
    }
  },
  decide(command, state) {
    if (!state.exists) throw new NotFoundError("User not found.");
    switch (command.type) {
      case "CreateFolder":
        if (find(state, command.name)) throw taken();
        return [{ type: "FolderCreated", data: { folderId: command.folderId, name: command.name } }];
      case "RenameFolder": {
        const folder = find(state, command.name);
        if (!folder) throw new NotFoundError("Folder not found.");
        const clash = find(state, command.newName);
        if (clash && clash[0] !== folder[0]) throw taken();
        if (folder[1] === command.newName) return [];
        return [{ type: "FolderRenamed", data: { folderId: folder[0], name: command.newName, previousName: folder[1] } }];
      }
      case "DeleteFolder": {
        const folder = find(state, command.name);
        if (!folder) throw new NotFoundError("Folder not found.");
        return [{ type: "FolderDeleted", data: { folderId: folder[0], name: folder[1] } }];
      }
      default:
        return assertNever(command);
    }
  },
};
