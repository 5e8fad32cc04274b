import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { EventMetadata } from "../core/event.ts";
import { nextId } from "../core/sequence.ts";
import { ValidationFailedError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { FolderDocument } from "./folders-projection.ts";
import { AccountCommands } from "../accounts/commands.ts";
import { folderDecider, type FolderCommand } from "./decider.ts";
import { folderNameProblem } from "./name.ts";

/** How many tasks each folder holds: the tasks capability counts them, folders only show them. */
export type FolderTaskCounts = (userId: number) => Promise<{ inFolder(folderId: number | null): number; total: number }>;

/** Folder use cases: commands on the account's stream, reads from `folders` and the task counts. */
export class Folders {
  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
    private readonly taskCounts: FolderTaskCounts,
  ) {
    this.accounts = new AccountCommands(store);
  }

  /** Folders live on the account's stream: written through the accounts' commands. */
  private readonly accounts: AccountCommands;

  async list(userId: number) {
    const folders = await this.db.collection<FolderDocument>("folders").find({ userId }, { sort: { id: 1 } });
    const counts = await this.taskCounts(userId);
    return {
      folders: folders.map((f) => ({ id: f.id, name: f.name, count: counts.inFolder(f.id) })),
      uncategorized_count: counts.inFolder(null),
      total_count: counts.total,
    };
  }

  private async run(userId: number, command: FolderCommand, metadata: EventMetadata) {
    const result = await this.accounts.decideOnAccount(userId, folderDecider, (state) => folderDecider.decide(command, state), { metadata });
    if (result.position !== null) await this.waitFor(result.position);
    return result.state;
  }

  async create(userId: number, name: string, metadata: EventMetadata): Promise<{ id: number; name: string }> {
    checkName(name);
    const folderId = await nextId(this.store, "folder", metadata.correlationId);
    await this.run(userId, { type: "CreateFolder", folderId, name }, metadata);
    return { id: folderId, name };
  }

  async rename(userId: number, name: string, newName: string, metadata: EventMetadata): Promise<{ id: number; name: string }> {
    checkName(newName);
    const state = await this.run(userId, { type: "RenameFolder", name, newName }, metadata);
    const id = [...state.folders].find(([, n]) => n === newName)![0];
    return { id, name: newName };
  }

  async remove(userId: number, name: string, metadata: EventMetadata): Promise<void> {
    await this.run(userId, { type: "DeleteFolder", name }, metadata);
  }
}

function checkName(name: string): void {
  const problem = folderNameProblem(name);
  if (problem) throw new ValidationFailedError({ name: [problem] });
}
