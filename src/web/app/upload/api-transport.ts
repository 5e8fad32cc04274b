import { ApiError, api, call, type components } from "../api.ts";
import type { UploadFormats } from "./file-check.ts";
import { TransferError, type FileToUpload, type UploadSession, type UploadTransport } from "./multipart-upload.ts";
import { putPart } from "./put-part.ts";
import type { RecognitionRequest } from "./use-recognition-options.ts";

export type CreatedTask = components["schemas"]["CompletedUpload"]["task"];

/** The API's refusals as the uploader's errors, so that it can tell which are worth another attempt. */
async function transfer<T>(pending: Parameters<typeof call<T>>[0]): Promise<T> {
  try {
    return await call(pending);
  } catch (error) {
    const refused = ApiError.of(error);
    throw new TransferError(refused.status, refused.message);
  }
}

/** How the task of a completed upload is to be made: speakers told apart or not, and its recognition's engine, language and vocabulary. */
export type CompletionOptions = { speakerDiarization: boolean; recognition?: RecognitionRequest };

/** The uploader's I/O in the browser: the typed client for the API's calls, XHR for the parts. */
export function apiTransport(options: CompletionOptions): UploadTransport<CreatedTask> {
  return {
    sign: (file: FileToUpload) =>
      call(api.POST("/api/uploads/sign", { body: { file: file.name, content_type: file.contentType, size: file.size, duration: file.duration } })),
    signPart: (session: UploadSession, partNumber: number) =>
      transfer(api.POST("/api/uploads/sign-part", { body: { path: session.path, upload_id: session.upload_id, part_number: partNumber } })),
    putPart,
    complete: async (session: UploadSession, file: FileToUpload) => {
      const completed = await call(
        api.POST("/api/uploads/complete", {
          body: {
            path: session.path,
            upload_id: session.upload_id,
            original_name: file.name,
            content_type: file.contentType,
            size: file.size,
            duration: file.duration,
            speaker_diarization: options.speakerDiarization,
            ...options.recognition,
          },
        }),
      );
      return completed.task;
    },
    abort: async (session: UploadSession) => {
      await call(api.POST("/api/uploads/abort", { body: { path: session.path, upload_id: session.upload_id } }));
    },
  };
}

let formats: Promise<UploadFormats> | null = null;

/** The formats and largest size uploads accept, asked once per visit (they change only with a new release). */
export function uploadFormats(): Promise<UploadFormats> {
  formats ??= call(api.GET("/api/uploads/formats")).catch((error: unknown) => {
    formats = null;
    throw error;
  });
  return formats;
}
