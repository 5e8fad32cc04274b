import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore, Filter } from "../readmodels/port.ts";
import type { EventMetadata } from "../core/event.ts";
import { handle } from "../core/command-handler.ts";
import { nextId } from "../core/sequence.ts";
import { NotFoundError, PreconditionFailedError, ValidationFailedError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { TaskDocument, TranscriptDocument } from "./tasks-projection.ts";
import type { FolderDocument } from "../folders/folders-projection.ts";
import { findTaskCounts, folderCountKey, type TaskCountsDocument } from "./task-counts.ts";
import { TaskSlots } from "./slots.ts";
import { assertCostCorrectable, taskDecider, type TaskCommand, type TaskState } from "./decider.ts";
import { taskStream, type TaskEvent } from "./events.ts";
import { applyText, normalizeSegments, segmentErrors, type Segment } from "./segments.ts";
import { largeTranscriptBytes, type TranscriptRef, type TranscriptStore } from "./transcripts.ts";
import { loadState } from "../core/state-cache.ts";
import { folderKey, uncategorized } from "../folders/name.ts";
import { assertBalanceAllows } from "../accounts/balance-rule.ts";
import type { createTaskBody, updateTaskBody } from "./schemas.ts";
import type { RevisionCondition } from "../http/if-match.ts";

/** What `POST /api/tasks` takes: the route's schema, validated before it gets here. */
export type CreateTaskInput = typeof createTaskBody.static;

/** A task's transcript as readers use it: segments resolved, summary and mind map. */
export type Transcript = { userId: number; segments: Segment[] | null; summary: string | null; mindmap: string | null };

/** What `PATCH /api/tasks/{id}` takes: the route's schema. */
export type TaskPatch = typeof updateTaskBody.static;

/**
 * Task use cases. Writes are commands on `task-<id>` (and the admission on `user-<id>`); reads come
 * from the `tasks`, `transcripts` and `folders` read models, scoped to the caller: another user's task
 * is "not found" everywhere.
 */
export class Tasks {
  constructor(
    private readonly store: EventStore,
    private readonly db: DocumentStore,
    private readonly waitFor: WaitForProjections,
    readonly transcripts: TranscriptStore,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.slots = new TaskSlots(store, now);
  }

  /** The user's concurrent-task slots, which creating and retrying take (uploads take theirs through it too). */
  readonly slots: TaskSlots;

  private get tasks() {
    return this.db.collection<TaskDocument>("tasks");
  }

  async owned(userId: number, taskId: number): Promise<TaskDocument> {
    const task = await this.tasks.findOne({ _id: String(taskId) });
    if (!task || task.userId !== userId) throw new NotFoundError("Task not found.");
    return task;
  }

  /** The task's transcript with its segments read from wherever they are kept (see TranscriptStore). */
  async transcript(taskId: number): Promise<Transcript | null> {
    const doc = await this.db.collection<TranscriptDocument>("transcripts").findOne({ _id: String(taskId) });
    return doc && { userId: doc.userId, segments: await this.transcripts.segmentsOf(doc), summary: doc.summary, mindmap: doc.mindmap };
  }

  /**
   * The version of the user's task list: the log position of the last change to any of their tasks, or
   * null while one is being written (or before their first task), when nothing read should be kept.
   */
  async listVersion(userId: number): Promise<number | null> {
    const counts = await findTaskCounts(this.db, userId);
    return counts === null || counts.changing !== undefined ? null : counts._position;
  }

  async findFolder(userId: number, name: string): Promise<FolderDocument | null> {
    const folders = await this.db.collection<FolderDocument>("folders").find({ userId });
    const key = folderKey(name);
    return folders.find((f) => folderKey(f.name) === key) ?? null;
  }

  private async run(taskId: number, command: TaskCommand, metadata: EventMetadata, condition: RevisionCondition | null = null): Promise<number | null> {
    return this.runAll(taskId, [command], metadata, condition);
  }

  /**
   * The commands' events, decided one on another's result and appended at once: a PATCH of several fields is
   * one change. `condition` (a request's If-Match) is checked on the revision they are decided on; the append
   * expects that revision, so of two writers that read the same version only the first one lands, and the
   * other's retry meets the newer revision and is refused (412).
   */
  private async runAll(taskId: number, commands: readonly TaskCommand[], metadata: EventMetadata, condition: RevisionCondition | null): Promise<number | null> {
    const decision = (state: TaskState, revision: number) => {
      condition?.(revision);
      const events: TaskEvent[] = [];
      for (const command of commands) {
        const decided = taskDecider.decide(command, state);
        events.push(...decided);
        state = decided.reduce(taskDecider.evolve, state);
      }
      return events;
    };
    return (await handle(this.store, taskStream(taskId), taskDecider, decision, { metadata })).position;
  }

  /** Refuses (412) before any work when the task is already past the version the caller read; checked again on the append. */
  private async checkEarly(taskId: number, condition: RevisionCondition | null): Promise<void> {
    if (condition) condition((await loadState(this.store, taskStream(taskId), taskDecider)).revision);
  }

  /** Waits until the read models show the log up to `position` (a write this caller made or waits on). */
  async settle(position: number | null): Promise<void> {
    if (position !== null) await this.waitFor(position);
  }

  /** `options.taskId`: an id taken earlier (an upload's completion records it first), so a repeat creates nothing new. */
  async create(userId: number, input: CreateTaskInput, metadata: EventMetadata, options: { taskId?: number } = {}): Promise<TaskDocument> {
    const problems = input.segments ? segmentErrors(input.segments) : {};
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    // Recognition needs time on the balance (403 otherwise); uploads check it on sign and complete, before they pass their task id.
    if (!input.segments && options.taskId === undefined) await assertBalanceAllows(this.db, userId, input.duration);
    const taskId = options.taskId ?? (await nextId(this.store, "task", metadata.correlationId));
    // The transcript is stored before anything is appended: an event only ever names a blob that exists.
    const transcript = await this.storeSuppliedTranscript(taskId, input);
    let position: number | null;
    try {
      await this.slots.admit(userId, taskId, 1, input.disk, metadata);
      position = await this.run(
        taskId,
        {
          type: "CreateTask",
          now: this.now().toISOString(),
          task: {
            taskId,
            userId,
            name: input.name,
            file: input.file ?? null,
            path: input.path,
            disk: input.disk,
            size: input.size ?? null,
            duration: input.duration ?? null,
            cost: input.cost ?? null,
            url: input.disk === "videolink" || input.disk === "remote" ? input.path : null,
            speakerDiarization: input.speaker_diarization ?? false,
            transcript,
          },
        },
        metadata,
      );
    } catch (error) {
      await this.discardUnrecorded(taskId, transcript);
      throw error;
    }
    await this.settle(position);
    return this.owned(userId, taskId);
  }

  /**
   * A transcript stored for a task that was then not created (refused with 429, or the append failed) is named by
   * no event, so nothing would ever delete it. If the append landed before the failure, it is the task's: kept.
   */
  private async discardUnrecorded(taskId: number, transcript: TranscriptRef | null): Promise<void> {
    if (transcript && (await this.store.readStream(taskStream(taskId), { maxCount: 1 })).length === 0) await this.transcripts.discard(taskId, transcript);
  }

  /**
   * Stores the supplied segments (none: null), then lets go of them (`input.segments` is emptied): the caller's parsed body,
   * held by the HTTP context until the answer, would otherwise keep up to 100,000 segments alive through the
   * read-your-writes wait, while the search read model loads its own copy to index. Four clients sending
   * maximal transcripts took the service's peak RSS to 570-600 MiB with them kept, 416-472 MiB without
   * (bench/hostile-bodies.bench.ts; goal 512).
   */
  private async storeSuppliedTranscript(taskId: number, input: CreateTaskInput): Promise<TranscriptRef | null> {
    if (!input.segments) return null;
    const transcript = await this.transcripts.save(taskId, normalizeSegments(input.segments));
    (input as { segments?: unknown }).segments = undefined;
    // Collected soon, in the background: the wait ahead is the moment to (the heavy-work slot is still held).
    if (transcript.bytes > largeTranscriptBytes) Bun.gc(false);
    return transcript;
  }

  async list(userId: number, query: { status?: string; search?: string; folder?: string; page?: number; per_page?: number }) {
    const filter: Filter = { userId };
    if (query.status && query.status !== "all") filter.status = query.status;
    if (query.search) filter.nameKey = { $contains: query.search.toLowerCase() };
    if (query.folder !== undefined) {
      if (query.folder === uncategorized) filter.folderId = null;
      else {
        const folder = await this.findFolder(userId, query.folder);
        if (!folder) throw new ValidationFailedError({ folder: ["The selected folder does not exist."] });
        filter.folderId = folder.id;
      }
    }
    const page = query.page ?? 1;
    const perPage = query.per_page ?? 25;
    const problems: Record<string, string[]> = {};
    if (page < 1 || page > 1_000_000) problems.page = [page < 1 ? "The page field must be at least 1." : "The page field must not be greater than 1000000."];
    if (perPage < 1 || perPage > 100)
      problems.per_page = [perPage < 1 ? "The per page field must be at least 1." : "The per page field must not be greater than 100."];
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    const [total, data] = await Promise.all([
      this.total(userId, filter),
      this.tasks.find(filter, { sort: { id: -1 }, skip: (page - 1) * perPage, limit: perPage }),
    ]);
    return { data, current_page: page, last_page: Math.max(1, Math.ceil(total / perPage)), per_page: perPage, total };
  }

  /** How many tasks a list filter matches: from the user's counts where they have it, else counted. */
  private async total(userId: number, filter: Filter): Promise<number> {
    const byStatus = filter.status !== undefined;
    const byFolder = filter.folderId !== undefined;
    if (filter.nameKey !== undefined || (byStatus && byFolder)) return this.tasks.countDocuments(filter);
    const counts = await findTaskCounts(this.db, userId);
    if (counts === null) return 0;
    if (byStatus) return counts.byStatus[filter.status as keyof TaskCountsDocument["byStatus"]] ?? 0;
    if (byFolder) return counts.byFolder[folderCountKey(filter.folderId as number | null)] ?? 0;
    return counts.total;
  }

  /** `condition`: the request's If-Match (task-versions.ts); null changes the task whatever its version. */
  async update(userId: number, taskId: number, patch: TaskPatch, metadata: EventMetadata, condition: RevisionCondition | null = null): Promise<void> {
    const task = await this.owned(userId, taskId);
    // Before a transcript is stored that a stale request could not use.
    await this.checkEarly(taskId, condition);
    // Everything is checked before anything is appended, so a bad field leaves the task as it was.
    if (patch.cost !== undefined) assertCostCorrectable((await loadState(this.store, taskStream(taskId), taskDecider)).state);
    const commands: TaskCommand[] = [];
    if (patch.segments) {
      const problems = segmentErrors(patch.segments);
      if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
      commands.push({ type: "EditTranscript", transcript: await this.transcripts.save(taskId, normalizeSegments(patch.segments)) });
    } else if (patch.text !== undefined) {
      const current = (await this.transcript(taskId))?.segments ?? [];
      const edited = applyText(current, patch.text, patch.duration ?? task.duration);
      if ("error" in edited) throw new ValidationFailedError({ text: [edited.error] });
      commands.push({ type: "EditTranscript", transcript: await this.transcripts.save(taskId, edited) });
    }
    if (patch.folder !== undefined) {
      const folder = patch.folder === null ? null : await this.findFolder(userId, patch.folder);
      if (patch.folder !== null && !folder) throw new ValidationFailedError({ folder: ["The selected folder does not exist."] });
      commands.push({ type: "MoveTask", folder: folder && { id: folder.id, name: folder.name } });
    }
    if (patch.name !== undefined) commands.push({ type: "RenameTask", name: patch.name });
    if (patch.duration !== undefined || patch.cost !== undefined || patch.index !== undefined) {
      commands.push({ type: "CorrectTaskDetails", duration: patch.duration, cost: patch.cost, index: patch.index });
    }
    if (patch.quality !== undefined) commands.push({ type: "RateTask", quality: patch.quality });
    let position: number | null = null;
    try {
      position = await this.runAll(taskId, commands, metadata, condition);
    } catch (error) {
      // Deleted meanwhile (the deletion may already have swept the task's transcripts, before this one was stored),
      // or changed meanwhile (412): the stored transcript is named by no event.
      const edit = commands.find((command) => command.type === "EditTranscript");
      if ((error instanceof NotFoundError || error instanceof PreconditionFailedError) && edit) await this.transcripts.discard(taskId, edit.transcript);
      throw error;
    }
    await this.settle(position);
  }

  async remove(userId: number, taskId: number, metadata: EventMetadata, condition: RevisionCondition | null = null): Promise<void> {
    const task = await this.owned(userId, taskId);
    const position = await this.run(taskId, { type: "DeleteTask" }, metadata, condition);
    // Freed here too (the slot worker also does it), so a create right after a delete is admitted.
    await this.slots.release(userId, taskId, task.attempts, metadata);
    await this.settle(position);
  }

  /** Deletes the caller's tasks among `ids` (others are ignored) and says how many it deleted. */
  async removeMany(userId: number, ids: number[], metadata: EventMetadata): Promise<number> {
    const own = await this.tasks.find({ userId, id: { $in: [...new Set(ids)] } });
    let deleted = 0;
    let position: number | null = null;
    for (const task of own) {
      const appended = await this.unlessGone(() => this.run(task.id, { type: "DeleteTask" }, metadata));
      if (appended === undefined) continue;
      position = appended ?? position;
      deleted++;
      await this.slots.release(userId, task.id, task.attempts, metadata);
    }
    await this.settle(position);
    return deleted;
  }

  /** `Uncategorized` (as in the list's filter; no folder may take the name) takes the tasks out of their folders. */
  async moveMany(userId: number, ids: number[], folderName: string, metadata: EventMetadata): Promise<number> {
    let target: { id: number; name: string } | null = null;
    if (folderName !== uncategorized) {
      const folder = await this.findFolder(userId, folderName);
      if (!folder) throw new ValidationFailedError({ folder: ["The selected folder does not exist."] });
      target = { id: folder.id, name: folder.name };
    }
    const own = await this.tasks.find({ userId, id: { $in: [...new Set(ids)] } });
    let position: number | null = null;
    let moved = 0;
    for (const task of own) {
      const appended = await this.unlessGone(() => this.run(task.id, { type: "MoveTask", folder: target }, metadata));
      if (appended === undefined) continue;
      position = appended ?? position;
      moved++;
    }
    await this.settle(position);
    return moved;
  }

  /** A task deleted by a parallel request since we listed it is skipped (undefined), not an error. */
  private async unlessGone<R>(work: () => Promise<R>): Promise<R | undefined> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }
  }

  async retry(userId: number, taskId: number, metadata: EventMetadata, condition: RevisionCondition | null = null): Promise<TaskDocument> {
    const task = await this.owned(userId, taskId);
    await this.checkEarly(taskId, condition);
    // The decider refuses (422) before a slot is taken that the retry could not use. Parallel retries take
    // the one slot of the next attempt; the retry that loses keeps out of the winner's slot. A slot whose
    // attempt never began is freed by admission once it is needed (TaskSlots).
    taskDecider.decide({ type: "RetryTask" }, (await loadState(this.store, taskStream(taskId), taskDecider)).state);
    await this.slots.admit(userId, taskId, task.attempts + 1, task.disk, metadata);
    await this.settle(await this.run(taskId, { type: "RetryTask" }, metadata, condition));
    return this.owned(userId, taskId);
  }

  async share(userId: number, taskId: number, metadata: EventMetadata): Promise<void> {
    await this.owned(userId, taskId);
    await this.settle(await this.run(taskId, { type: "ShareTask" }, metadata));
  }

  async unshare(userId: number, taskId: number, metadata: EventMetadata): Promise<void> {
    await this.owned(userId, taskId);
    await this.settle(await this.run(taskId, { type: "UnshareTask" }, metadata));
  }
}
