import type { EventMetadata } from "../core/event.ts";
import { pollUntil } from "../core/poll.ts";
import { ConflictError, NotFoundError } from "../core/errors.ts";
import { NoSuchUploadError, type BlobStore } from "../blobs/port.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import type { Tasks } from "../tasks/service.ts";
import type { Completion } from "./decider.ts";
import type { UploadSession } from "./events.ts";
import { partProblem } from "./parts.ts";

/**
 * The task a completion created, as it was created (status `pending`, spec 4.3): the same answer for
 * every repeat of the complete, whatever the task has become since.
 */
export type CreatedTask = { id: number; name: string; path: string; size: number; status: "pending"; speaker_diarization: boolean };

/**
 * A recorded completion carried on to its task, across the blob store and the task's stream: the
 * upload-completion worker's step (and the cleanup job's, and the request's when no worker came).
 */
export class UploadCompletions {
  constructor(
    private readonly blobs: BlobStore,
    private readonly tasks: Tasks,
    private readonly workerWaitMs: number,
  ) {}

  /**
   * The task a recorded completion creates, once the upload-completion worker has made it. Should no
   * worker have done so in time (none running, or it gave up), the request finishes the completion
   * itself: finishing is idempotent, so it does what the worker would.
   */
  async taskOf(session: UploadSession, completion: Completion, metadata: EventMetadata): Promise<CreatedTask> {
    const created = async () => {
      const [first] = await this.tasks.commands.events(completion.taskId, { maxCount: 1 });
      if (first) await this.tasks.settle(first.position);
      return first !== undefined;
    };
    await pollUntil(created, this.workerWaitMs);
    await this.finish(session, completion, metadata);
    return {
      id: completion.taskId,
      name: completion.name,
      path: session.key,
      size: session.size,
      status: "pending",
      speaker_diarization: completion.speakerDiarization,
    };
  }

  /** Assembles the object unless it is there already, then creates the task unless it exists. Idempotent. */
  async finish(session: UploadSession, completion: Completion, metadata: EventMetadata): Promise<TaskDocument> {
    const { state: task } = await this.tasks.commands.state(completion.taskId);
    if (task.status === "live") return this.tasks.owned(session.userId, completion.taskId);
    if (task.status === "deleted") throw new NotFoundError("The task this upload created has been deleted.");

    let object = await this.blobs.head(session.key);
    if (!object) {
      try {
        const listed = await this.blobs.listParts(session.key, session.storageUploadId);
        // Checked before the completion was recorded; parts going missing since means another
        // request is assembling them right now.
        if (partProblem(session, listed)) throw new NoSuchUploadError(session.storageUploadId);
        object = await this.blobs.completeMultipartUpload(session.key, session.storageUploadId, listed);
      } catch (error) {
        if (!(error instanceof NoSuchUploadError)) throw error;
        object = await this.blobs.head(session.key);
        if (!object) throw new ConflictError("This upload is being completed; repeat the request in a moment.");
      }
    }
    if (object.size !== session.size) throw new Error(`upload ${session.uploadId}: assembled ${object.size} bytes, signed ${session.size}`);

    return this.tasks.create(
      session.userId,
      {
        disk: "objstore",
        name: completion.name,
        path: session.key,
        file: completion.file,
        size: session.size,
        duration: completion.duration ?? undefined,
        speaker_diarization: completion.speakerDiarization,
        engine: completion.engine,
        language: completion.language,
        vocabulary: completion.vocabulary,
      },
      metadata,
      { taskId: completion.taskId },
    );
  }
}
