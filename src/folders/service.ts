import type { EventStore } from "../eventstore/port.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { EventMetadata } from "../core/event.ts";
import { handleCommand } from "../core/command-handler.ts";
import { nextId } from "../core/sequence.ts";
import { ValidationFailedError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { FolderDocument } from "./folders-projection.ts";
import { findTaskCounts, folderCountKey } from "../tasks/task-counts.ts";
import { userStream } from "../accounts/events.ts";
import { folderDecider, type FolderCommand } from "./decider.ts";
import { folderNameProblem } from "./name.ts";

/** Folder use cases: commands on the account's stream, reads from `folders` and `task_counts`. */
export class Folders {
  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
  ) {}

  async list(userId: number) {
    const folders = await this.db.collection<FolderDocument>("folders").find({ userId }, { sort: { id: 1 } });
    const counts = await findTaskCounts(this.db, userId);
    const count = (folderId: number | null) => counts?.byFolder[folderCountKey(folderId)] ?? 0;
    return {
      folders: folders.map((f) => ({ id: f.id, name: f.name, count: count(f.id) })),
      uncategorized_count: count(null),
      total_count: counts?.total ?? 0,
    };
  }

  private async run(userId: number, command: FolderCommand, metadata: EventMetadata) {
    const result = await handleCommand(this.store, userStream(userId), folderDecider, command, { metadata });
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
