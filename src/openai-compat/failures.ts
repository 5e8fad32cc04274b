import { OpenAiError } from "../http/openai-errors.ts";

/**
 * A request that created a task says so to OpenAI's SDKs, which otherwise retry a 5xx (or a timeout)
 * by sending the file again: each retry would be another task, charged again.
 */
export const noRetry = { "x-should-retry": "false" };

/** What the media itself is to blame for (its reasons begin so; see src/transcription/media.ts and pipeline.ts). */
const mediaFault = /^(The file |The audio |The media |The video |No speech )/;
const balanceFault = /^Not enough transcription time/;

/**
 * A task that failed, as OpenAI would answer it: the media's fault is 400 `invalid_request_error`, a balance
 * too small 403, anything else (the engine, storage, the stuck-task sweeper) 500 `server_error`. The
 * message names the task, which keeps the failure in its history and can be retried.
 */
export function failedTaskError(taskId: number, reason: string | null): OpenAiError {
  const why = reason ?? "no reason was recorded";
  const message = `Task ${taskId} failed: ${why}`;
  if (mediaFault.test(why)) return new OpenAiError(400, message, "invalid_audio", noRetry, "file");
  if (balanceFault.test(why)) return new OpenAiError(403, message, "insufficient_balance", noRetry);
  return new OpenAiError(500, message, "transcription_failed", noRetry);
}

/** Past the wait: the task goes on, and its id is what the client polls (`GET /api/tasks/{id}`). */
export function stillRunningError(taskId: number, waitedSeconds: number): OpenAiError {
  return new OpenAiError(
    504,
    `Task ${taskId} is still being transcribed after ${waitedSeconds} s; it goes on: ` +
      `poll GET /api/tasks/${taskId} and read the transcript there when its status is finished.`,
    "transcription_timeout",
    { ...noRetry, "x-task-id": String(taskId) },
  );
}

/** The file could not be read as media: refused before any task is made, so nothing is charged or listed. */
export function undecodableError(reason: string): OpenAiError {
  return new OpenAiError(400, reason, "invalid_audio", {}, "file");
}
