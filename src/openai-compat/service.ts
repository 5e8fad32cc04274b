import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { BlobStore } from "../blobs/port.ts";
import type { EventMetadata } from "../core/event.ts";
import { NotFoundError } from "../core/errors.ts";
import { pollUntil } from "../core/poll.ts";
import { nameWithoutExtension, safeFileName } from "../media/formats.ts";
import type { Segment } from "../tasks/segments.ts";
import type { Tasks } from "../tasks/service.ts";
import type { TaskDocument } from "../tasks/tasks-projection.ts";
import { MediaError, probe } from "../transcription/media.ts";
import { failedTaskError, stillRunningError, undecodableError } from "./failures.ts";
import { unnamable } from "../http/names.ts";
import { recognitionChoice, type RecognitionFields } from "../tasks/recognition-choice.ts";
import type { TranscriptionConfig } from "../transcription/config.ts";
import { engineOfModel, servedLanguage } from "./models.ts";
import { vocabularyOfPrompt } from "./prompt-vocabulary.ts";

/** The form's fields that say how to recognise (schemas.ts). */
export type RecognitionRequest = { model: string; language?: string; prompt?: string };

/** A task this endpoint created, with what the probe measured of its media and the language `verbose_json` names. */
export type Submitted = { taskId: number; durationSeconds: number; language: string };

/** A finished task's transcript and what it cost. */
export type Finished = { segments: Segment[]; durationSeconds: number; chargedSeconds: number };

/** The task's name: the file's, without its extension, as uploads name theirs. */
export function taskNameOf(fileName: string): string {
  // Control and text-direction characters and lone surrogates are no part of a task name (src/http/names.ts).
  const name = nameWithoutExtension(fileName).toWellFormed().replace(unnamable, " ").trim().slice(0, 255).trim();
  return name === "" ? "Transcription" : name;
}

/**
 * `POST /v1/audio/transcriptions` as use cases of the tasks capability: the file is probed, stored where
 * uploads keep media (`uploads/<user>/<128 random bits>/<file>`, so the task reads only its owner's media
 * and deleting the task deletes it) and made a task by `Tasks.create`, with the same admission as every
 * other task (3 in progress, plan and balance); then the request waits for the task on the tasks read model.
 */
export class OpenAiTranscriptions {
  constructor(
    private readonly tasks: Tasks,
    private readonly blobs: BlobStore,
    private readonly waitMs: number,
    private readonly transcription: TranscriptionConfig,
  ) {}

  /**
   * The task's engine, language and vocabulary from `model`, `language` and `prompt`, checked against what the service
   * offers before anything is stored: an unknown model is 404, a language the engine cannot recognise 400 (the
   * tasks capability's 422, retold in OpenAI's shape by the error handler).
   */
  recognition(request: RecognitionRequest): { fields: RecognitionFields; language: string } {
    const offer = this.tasks.recognitionOffer;
    const engine = engineOfModel(request.model, offer);
    const fields: RecognitionFields = {
      ...(engine !== null ? { engine } : {}),
      ...(request.language !== undefined ? { language: request.language } : {}),
      vocabulary: vocabularyOfPrompt(request.prompt),
    };
    const choice = recognitionChoice(fields, offer);
    return { fields, language: servedLanguage(this.transcription, offer, choice.engine, choice.language) };
  }

  /**
   * Probes the file first, so a file ffprobe cannot read as audio is a 400 with no task, no charge and
   * nothing stored. The probed length is the task's `duration`, which admission checks against the balance.
   */
  async submit(userId: number, file: File, request: RecognitionRequest, metadata: EventMetadata): Promise<Submitted> {
    const { fields, language } = this.recognition(request);
    const durationSeconds = await this.probe(file);
    const fileName = file.name || "audio";
    const key = `uploads/${userId}/${randomBytes(16).toString("hex")}/${safeFileName(fileName)}`;
    await this.blobs.put(key, file, { contentType: file.type || "application/octet-stream" });
    try {
      const task = await this.tasks.create(
        userId,
        {
          disk: "objstore",
          name: taskNameOf(fileName),
          path: key,
          file: fileName.slice(0, 255),
          size: file.size,
          duration: Math.ceil(durationSeconds),
          ...fields,
        },
        metadata,
      );
      return { taskId: task.id, durationSeconds, language };
    } catch (error) {
      // Refused (3 in progress, balance): no task names the file, so nothing else would ever delete it.
      await this.blobs.delete(key).catch(() => undefined);
      throw error;
    }
  }

  private async probe(file: File): Promise<number> {
    if (file.size === 0) throw undecodableError("The file is empty (0 bytes).");
    const dir = await mkdtemp(join(tmpdir(), "scribe-v1-probe-"));
    try {
      const path = join(dir, safeFileName(file.name || "audio"));
      await Bun.write(path, file);
      const info = await probe(path);
      // The pipeline's own refusals (pipeline.ts), made before a task exists.
      if (!info.hasAudio && /^image2|_pipe$/.test(info.format)) throw undecodableError("The file is a picture, not audio or video.");
      if (!info.hasAudio)
        throw undecodableError(info.hasVideo ? "The video has no audio track: there is nothing to transcribe." : "The file has no audio to transcribe.");
      return info.durationSeconds ?? 0;
    } catch (error) {
      if (error instanceof MediaError) throw undecodableError(error.message);
      throw error;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * The transcript once the task has finished. A failed task is its failure reason as an OpenAI error;
   * past the wait (or when the client has gone), an error naming the task, which goes on. `signal` is the
   * request's: a client that hung up is not waited for.
   */
  async finished(userId: number, submitted: Submitted, signal: AbortSignal): Promise<Finished> {
    let task: TaskDocument | null = null;
    const ended = async () => {
      task = await this.tasks.owned(userId, submitted.taskId).catch((error: unknown) => {
        if (error instanceof NotFoundError) throw new NotFoundError(`Task ${submitted.taskId} was deleted before it finished.`);
        throw error;
      });
      return task.status === "finished" || task.status === "failed" || signal.aborted;
    };
    const done = await pollUntil(ended, this.waitMs);
    const last = task as TaskDocument | null;
    if (!done || !last || signal.aborted) throw stillRunningError(submitted.taskId, Math.round(this.waitMs / 1000));
    if (last.status === "failed") throw failedTaskError(last.id, last.failureReason);
    const transcript = await this.tasks.transcript(last.id);
    return { segments: transcript?.segments ?? [], durationSeconds: submitted.durationSeconds || last.duration, chargedSeconds: last.cost ?? last.duration };
  }
}
