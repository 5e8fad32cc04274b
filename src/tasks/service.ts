import type { EventStore } from "../core/event-store.ts";
import type { DocumentStore } from "../readmodels/port.ts";
import type { EventMetadata } from "../core/event.ts";
import { nextId } from "../core/sequence.ts";
import { NotFoundError, PreconditionFailedError, ValidationFailedError } from "../core/errors.ts";
import type { WaitForProjections } from "../core/projection.ts";
import type { TaskDocument, TranscriptDocument } from "./tasks-projection.ts";
import type { FolderDocument } from "../folders/folders-projection.ts";
import { findTaskCounts, type TaskCountsDocument } from "./task-counts.ts";
import { StampedCache } from "../readmodels/stamped-cache.ts";
import { TaskSlots } from "./slots.ts";
import { assertCostCorrectable, taskVersion, type TaskCommand, type TaskState } from "./decider.ts";
import { TaskCommands } from "./commands.ts";
import { segmentErrors, type Segment } from "./segments.ts";
import type { TranscriptRef, TranscriptStore } from "./transcripts.ts";
import type { StoredTranscript } from "./stored-transcript.ts";
import { uncategorized } from "../folders/name.ts";
import { assertBalanceAllows } from "../accounts/balance-rule.ts";
import type { RevisionCondition } from "../http/if-match.ts";
import { existingFolder, listTasks, type TaskListQuery } from "./task-list.ts";
import { patchCommands, type TaskPatch } from "./task-patch.ts";
import { freshnessOf, type TranscriptFreshness } from "./summary-freshness.ts";
import { createTaskCommand, storeSuppliedTranscript, type CreateOptions, type CreateTaskInput } from "./task-creation.ts";
import { recognitionChoice, type RecognitionOffer } from "./recognition-choice.ts";

/** How many task documents and task counts are kept between reads: a few kilobytes each. */
const keptDocuments = 10_000;

/** PocketSphinx alone, English only: what a service offers unless its configuration says more (capability-parts.ts). */
const sphinxOnly: RecognitionOffer = { defaultEngine: "sphinx", engines: ["sphinx"], languagesOf: () => ["en"] };

export type { TaskPatch } from "./task-patch.ts";
export type { CreateOptions, CreateTaskInput, LiveRecording } from "./task-creation.ts";

/** A task's transcript as readers use it: segments resolved, summary and mind map, and which transcript these are of. */
export type Transcript = { userId: number; segments: Segment[] | null; summary: string | null; mindmap: string | null } & TranscriptFreshness;

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
    /** The engines and languages a task may ask for. */
    readonly recognitionOffer: RecognitionOffer = sphinxOnly,
    /**
     * What a new or edited transcript's answer waits for: every read model but search in full, search at most its
     * answerWaitMs (projections/answer-waits.ts), so a maximal transcript is answered once its task can be read. Every
     * other write (a delete above all: erasure relies on its words leaving the index) waits for all of them in full.
     */
    private readonly transcriptWaitFor: WaitForProjections = waitFor,
  ) {
    this.slots = new TaskSlots(store, now);
    this.commands = new TaskCommands(store);
    this.taskDocuments = new StampedCache(db, ["tasks"], keptDocuments);
    this.taskCounts = new StampedCache(db, ["task_counts"], keptDocuments);
  }

  /** How other capabilities and workers change a task (the only writers of `task-<id>` besides this service). */
  readonly commands: TaskCommands;

  /** The user's concurrent-task slots, which creating and retrying take (uploads take theirs through it too). */
  readonly slots: TaskSlots;

  private get tasks() {
    return this.db.collection<TaskDocument>("tasks");
  }

  /**
   * Every read of a task or of a user's task list starts from one of these documents: kept while their read model
   * is unchanged (StampedCache), so a read asked again reads no row. They come out frozen and shared.
   */
  private readonly taskDocuments: StampedCache<TaskDocument>;
  private readonly taskCounts: StampedCache<TaskCountsDocument>;

  /** The caller's task as the read model has it (404 for anyone else's); frozen, shared between readers. */
  async owned(userId: number, taskId: number): Promise<TaskDocument> {
    const id = String(taskId);
    const task = await this.taskDocuments.get(id, () => this.tasks.findOne({ _id: id }));
    if (!task || task.userId !== userId) throw new NotFoundError("Task not found.");
    return task;
  }

  /** The task's transcript with its segments read from wherever they are kept (see TranscriptStore). */
  async transcript(taskId: number): Promise<Transcript | null> {
    const doc = await this.db.collection<TranscriptDocument>("transcripts").findOne({ _id: String(taskId) });
    return doc && { userId: doc.userId, segments: await this.transcripts.segmentsOf(doc), summary: doc.summary, mindmap: doc.mindmap, ...freshnessOf(doc) };
  }

  /**
   * The version of the user's task list: the log position of the last change to any of their tasks, or
   * null while one is being written (or before their first task), when nothing read should be kept.
   */
  async listVersion(userId: number): Promise<number | null> {
    const counts = await this.taskCounts.get(String(userId), () => findTaskCounts(this.db, userId));
    return counts === null || counts.changing !== undefined ? null : counts._position;
  }

  existingFolder(userId: number, name: string): Promise<FolderDocument> {
    return existingFolder(this.db, userId, name);
  }

  /**
   * The commands' events, decided one on another's result and appended at once: a PATCH of several fields is
   * one change. `condition` (a request's If-Match) is checked on the revision they are decided on; the append
   * expects that revision, so of two writers that read the same version only the first one lands, and the
   * other's retry meets the newer revision and is refused (412).
   */
  private async run(taskId: number, commands: TaskCommand | readonly TaskCommand[], metadata: EventMetadata, condition: RevisionCondition | null = null) {
    const decision = (state: TaskState, revision: number) => {
      condition?.(taskVersion(state, revision));
      return commands;
    };
    return (await this.commands.decide(taskId, decision, { metadata })).position;
  }

  /** The task as it stands, refused (412) before any work when it is already past the version the caller read; checked again on the append. */
  private async checkEarly(taskId: number, condition: RevisionCondition | null): Promise<TaskState> {
    const { state, revision } = await this.commands.state(taskId);
    condition?.(taskVersion(state, revision));
    return state;
  }

  /** Waits until the read models show the log up to `position` (a write this caller made or waits on). */
  async settle(position: number | null): Promise<void> {
    if (position !== null) await this.waitFor(position);
  }

  /** See CreateOptions: a task id taken earlier, or a live session's recording. */
  async create(userId: number, input: CreateTaskInput, metadata: EventMetadata, options: CreateOptions = {}): Promise<TaskDocument> {
    const problems = input.segments ? segmentErrors(input.segments) : {};
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    const choice = recognitionChoice(input, this.recognitionOffer);
    const { live } = options;
    // Recognition needs time on the balance (403 otherwise); uploads check it on sign and complete, before they pass their task id.
    // A live session's was checked while it was spoken (its charge never takes the balance below zero).
    if (!input.segments && !options.stored && !live && options.taskId === undefined) await assertBalanceAllows(this.db, userId, input.duration);
    const taskId = options.taskId ?? (await nextId(this.store, "task", metadata.correlationId));
    // The transcript is stored before anything is appended: an event only ever names a blob that exists.
    const transcript = await storeSuppliedTranscript(this.transcripts, taskId, input, options);
    let position: number | null;
    try {
      await (live ? this.slots.admitLive(userId, taskId, input.cost ?? 0, metadata) : this.slots.admit(userId, taskId, 1, input.disk, metadata));
      position = await this.run(taskId, createTaskCommand(taskId, userId, input, choice, transcript, this.now(), live !== undefined), metadata);
    } catch (error) {
      await this.discardUnrecorded(taskId, transcript);
      throw error;
    }
    if (position !== null) await this.transcriptWaitFor(position);
    return this.owned(userId, taskId);
  }

  /**
   * A transcript stored for a task that was then not created (refused with 429, or the append failed) is named by
   * no event, so nothing would ever delete it. If the append landed before the failure, it is the task's: kept.
   */
  private async discardUnrecorded(taskId: number, transcript: TranscriptRef | null): Promise<void> {
    if (transcript && (await this.commands.events(taskId, { maxCount: 1 })).length === 0) await this.transcripts.discard(taskId, transcript);
  }

  async list(userId: number, query: TaskListQuery) {
    return listTasks(this.db, userId, query);
  }

  /**
   * `condition`: the request's If-Match (task-versions.ts); null changes the task whatever its version. `stored`: the
   * patch's `segments`, made ready on the body thread (transcript-body.ts).
   */
  async update(
    userId: number,
    taskId: number,
    patch: TaskPatch,
    metadata: EventMetadata,
    condition: RevisionCondition | null = null,
    stored?: StoredTranscript,
  ): Promise<void> {
    const task = await this.owned(userId, taskId);
    // Before a transcript is stored that a stale request could not use.
    const state = await this.checkEarly(taskId, condition);
    // Everything is checked before anything is appended, so a bad field leaves the task as it was.
    if (patch.cost !== undefined) assertCostCorrectable(state);
    const commands = await patchCommands(
      patch,
      {
        duration: task.duration,
        currentSegments: async () => (await this.transcript(taskId))?.segments ?? [],
        existingFolder: (name) => this.existingFolder(userId, name),
        saveTranscript: (segments) => this.transcripts.save(taskId, segments),
        saveStored: (transcript) => this.transcripts.saveStored(taskId, transcript),
      },
      stored,
    );
    const edit = commands.find((command) => command.type === "EditTranscript");
    let position: number | null = null;
    try {
      position = await this.run(taskId, commands, metadata, condition);
    } catch (error) {
      // Deleted meanwhile (the deletion may already have swept the task's transcripts, before this one was stored),
      // or changed meanwhile (412): the stored transcript is named by no event.
      if ((error instanceof NotFoundError || error instanceof PreconditionFailedError) && edit) await this.transcripts.discard(taskId, edit.transcript);
      throw error;
    }
    if (position !== null) await (edit ? this.transcriptWaitFor(position) : this.waitFor(position));
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
      const folder = await this.existingFolder(userId, folderName);
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
    // The decider refuses (422) before a slot is taken that the retry could not use. Parallel retries take
    // the one slot of the next attempt; the retry that loses keeps out of the winner's slot. A slot whose
    // attempt never began is freed by admission once it is needed (TaskSlots).
    const retried = await this.commands.prepare(taskId, { type: "RetryTask" }, condition ?? undefined);
    await this.slots.admit(userId, taskId, task.attempts + 1, task.disk, metadata);
    await this.settle((await retried.append({ metadata })).position);
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
