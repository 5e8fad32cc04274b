import { randomBytes } from "node:crypto";
import { loadState } from "../core/state-cache.ts";
import type { EventStore } from "../core/event-store.ts";
import type { EventMetadata } from "../core/event.ts";
import { NoSuchUploadError, type BlobStore, type UploadedPart } from "../blobs/port.ts";
import { handle } from "../core/command-handler.ts";
import { nextId } from "../core/sequence.ts";
import { ForbiddenError, NotFoundError, ValidationFailedError } from "../core/errors.ts";
import type { Caller } from "../accounts/service.ts";
import type { UserDocument } from "../accounts/users-projection.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import type { Tasks } from "../tasks/service.ts";
import { assertOpen, ownSession, uploadDecider, type Completion, type UploadCommand, type UploadState } from "./decider.ts";
import { partUrlSeconds, uploadIdPattern, uploadSessionSeconds, uploadStream, type UploadSession } from "./events.ts";
import { extensionOf, formatErrors, mediaTypeEssence, nameWithoutExtension, safeFileName } from "../media/formats.ts";
import { expectedPartSize, partPlan, partProblem } from "./parts.ts";
import { uploadRefusal } from "./access.ts";
import { recognitionChoice, recordedChoice } from "../tasks/recognition-choice.ts";
import { UploadCompletions, type CreatedTask } from "./completion.ts";
import type { abortBody, completeBody, signBody, signPartBody } from "./schemas.ts";

/** What the upload routes take: their schemas, validated before they get here. */
export type SignInput = typeof signBody.static;
export type PartInput = typeof signPartBody.static;
export type CompleteInput = typeof completeBody.static;
export type AbortInput = typeof abortBody.static;

export type SessionView = { path: string; upload_id: string; part_size: number; part_count: number; expires_at: string };

const notFound = () => new NotFoundError("Upload session not found.");

/**
 * Multipart uploads (spec 4.3). Each session is the stream `upload-<id>`; the parts go straight to the
 * blob store through URLs it signs, and complete turns the session into an `objstore` task.
 */
export class Uploads {
  constructor(
    private readonly store: EventStore,
    private readonly blobs: BlobStore,
    private readonly tasks: Tasks,
    private readonly now: () => Date = () => new Date(),
    /** How long complete waits for the upload-completion worker before finishing the completion itself. */
    workerWaitMs = 10_000,
  ) {
    this.completions = new UploadCompletions(blobs, tasks, workerWaitMs);
  }

  private readonly completions: UploadCompletions;

  async sign(caller: Caller, user: UserDocument, input: SignInput, metadata: EventMetadata): Promise<SessionView> {
    const problems = formatErrors(input.file, input.content_type, { file: "file", contentType: "content_type" });
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);
    const refusal = uploadRefusal(caller, user, input.duration);
    if (refusal) throw new ForbiddenError(refusal);

    const uploadId = randomBytes(16).toString("hex");
    const key = `uploads/${caller.userId}/${uploadId}/${safeFileName(input.file)}`;
    const contentType = mediaTypeEssence(input.content_type);
    const now = this.now();
    const { partSize, partCount } = partPlan(input.size);
    const { uploadId: storageUploadId } = await this.blobs.createMultipartUpload(key, { contentType, partSize });
    const session: UploadSession = {
      uploadId,
      userId: caller.userId,
      key,
      storageUploadId,
      fileName: input.file,
      contentType,
      size: input.size,
      duration: input.duration ?? null,
      partSize,
      partCount,
      signedAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + uploadSessionSeconds * 1000).toISOString(),
    };
    try {
      await this.run(uploadId, { type: "SignUpload", session }, metadata);
    } catch (error) {
      await this.blobs.abortMultipartUpload(key, storageUploadId).catch(() => {});
      throw error;
    }
    return { path: key, upload_id: uploadId, part_size: partSize, part_count: partCount, expires_at: session.expiresAt };
  }

  /** `origin`: where the caller reached the API, which the embedded store's part URL points at (src/http/request-origin.ts). */
  async signPart(
    userId: number,
    input: PartInput,
    metadata: EventMetadata,
    origin?: string,
  ): Promise<{ url: string; headers: Record<string, string>; expires_at: string }> {
    if (!uploadIdPattern.test(input.upload_id)) throw notFound();
    const now = this.now();
    const { state } = await this.run(
      input.upload_id,
      { type: "AuthorizePart", userId, key: input.path, partNumber: input.part_number, now: now.toISOString() },
      metadata,
    );
    const session = (state as Exclude<UploadState, { status: "none" }>).session;
    const untilExpiry = Math.floor((Date.parse(session.expiresAt) - now.getTime()) / 1000);
    const seconds = Math.max(1, Math.min(partUrlSeconds, untilExpiry));
    const signed = await this.blobs.signUploadPart(session.key, session.storageUploadId, input.part_number, {
      expiresInSeconds: seconds,
      contentLength: expectedPartSize(session, input.part_number),
      origin,
    });
    return { url: signed.url, headers: signed.headers, expires_at: new Date(now.getTime() + seconds * 1000).toISOString() };
  }

  /**
   * Checks the parts, takes the task's slot (429 here, synchronously) and records the completion with the
   * task id. The upload-completion worker then assembles the object and creates the task; this request
   * waits for that task and answers with it. A repeated complete finds the completion recorded and
   * answers with the same task.
   */
  async complete(caller: Caller, user: UserDocument, input: CompleteInput, metadata: EventMetadata): Promise<CreatedTask> {
    if (!uploadIdPattern.test(input.upload_id)) throw notFound();
    const current = ownSession(await this.load(input.upload_id), caller.userId, input.path);
    if (current.status === "completed") return this.completions.taskOf(current.session, current.completion, metadata);
    assertOpen(current, this.now().toISOString());
    const session = current.session;

    const problems = formatErrors(input.original_name, input.content_type, { file: "original_name", contentType: "content_type" });
    if (!problems.original_name && extensionOf(input.original_name) !== extensionOf(session.fileName)) {
      problems.original_name = [`The original name must be a .${extensionOf(session.fileName)} file, as signed.`];
    }
    if (!problems.content_type && mediaTypeEssence(input.content_type) !== session.contentType) {
      problems.content_type = [`The content type must be ${session.contentType}, as signed.`];
    }
    if (input.size !== session.size) problems.size = [`The size must be ${session.size} bytes, as signed.`];
    if (Object.keys(problems).length > 0) throw new ValidationFailedError(problems);

    const refusal = uploadRefusal(caller, user, input.duration ?? session.duration);
    if (refusal) throw new ForbiddenError(refusal);

    let parts: UploadedPart[];
    try {
      parts = await this.blobs.listParts(session.key, session.storageUploadId);
    } catch (error) {
      if (!(error instanceof NoSuchUploadError)) throw error;
      // Gone from the store: a complete running in parallel took it, or it was discarded meanwhile.
      const now = await this.load(input.upload_id);
      if (now.status === "completed") return this.completions.taskOf(now.session, now.completion, metadata);
      throw new ValidationFailedError({ upload_id: ["The parts of this upload are gone; sign the upload again."] });
    }
    const problem = partProblem(session, parts);
    if (problem) throw new ValidationFailedError({ upload_id: [problem] }, problem);
    // Checked now: the task is created after this answer (by the worker, or a repeated complete), when a 422 would be lost.
    const choice = recognitionChoice(input, this.tasks.recognitionOffer);

    // The slot first, so a 429 leaves nothing behind. The slot is the upload's: a parallel or repeated
    // complete finds it and names the same task. Should the session end before the completion is
    // recorded, the upload-completion worker frees it.
    const taskId = await this.tasks.slots.admit(
      caller.userId,
      await nextId(this.store, "task", metadata.correlationId),
      1,
      "objstore",
      metadata,
      input.upload_id,
    );
    const completion: Completion = {
      taskId,
      name: input.name ?? nameWithoutExtension(input.original_name),
      file: input.original_name,
      duration: input.duration ?? session.duration,
      speakerDiarization: input.speaker_diarization ?? false,
      ...recordedChoice(choice),
    };
    const { state: recorded } = await this.run(
      input.upload_id,
      { type: "CompleteUpload", userId: caller.userId, key: session.key, completion, now: this.now().toISOString() },
      metadata,
    );
    if (recorded.status !== "completed") throw new Error(`upload ${input.upload_id} is ${recorded.status} after completing`);
    return this.completions.taskOf(recorded.session, recorded.completion, metadata);
  }

  async abort(userId: number, input: AbortInput, metadata: EventMetadata): Promise<void> {
    if (!uploadIdPattern.test(input.upload_id)) throw notFound();
    const { state } = await this.run(input.upload_id, { type: "AbortUpload", userId, key: input.path, now: this.now().toISOString() }, metadata);
    // Also when it was aborted before: a retry finishes a discard that failed half-way.
    if (state.status === "aborted" || state.status === "expired") await this.blobs.abortMultipartUpload(state.session.key, state.session.storageUploadId);
  }

  /** Expires a session past its expiry and discards its parts; false when it was not due (or not open). */
  async expire(uploadId: string, now: Date, metadata: EventMetadata): Promise<boolean> {
    const { events, state } = await this.run(uploadId, { type: "ExpireUpload", now: now.toISOString() }, metadata);
    if (events.length === 0 || state.status !== "expired") return false;
    await this.blobs.abortMultipartUpload(state.session.key, state.session.storageUploadId);
    return true;
  }

  /** Finishes a recorded completion: the upload-completion worker's step, and the cleanup job's for one it gave up on. */
  async finishRecorded(uploadId: string, metadata: EventMetadata): Promise<TaskDocument | null> {
    const state = await this.load(uploadId);
    if (state.status !== "completed") return null;
    return this.completions.finish(state.session, state.completion, metadata);
  }

  /** Gives back the slot a completion of this upload took, when the upload ended without its task. */
  async releaseSlot(userId: number, uploadId: string, metadata: EventMetadata): Promise<void> {
    await this.tasks.slots.releaseForUpload(userId, uploadId, metadata);
  }

  private async load(uploadId: string): Promise<UploadState> {
    return (await loadState(this.store, uploadStream(uploadId), uploadDecider)).state;
  }

  private run(uploadId: string, command: UploadCommand, metadata: EventMetadata) {
    return handle(this.store, uploadStream(uploadId), uploadDecider, (state) => uploadDecider.decide(command, state), { metadata });
  }
}
