import { useLocation } from "preact-iso";
import { useEffect, useRef } from "preact/hooks";
import { ApiError } from "../api.ts";
import { apiTransport } from "../upload/api-transport.ts";
import { CompletionFailed, UploadCancelled, uploadFile, type FileToUpload } from "../upload/multipart-upload.ts";
import { ProgressMeter } from "../upload/progress-meter.ts";
import type { Phase } from "./phase.ts";

export type RecordingUpload = {
  /** Uploads the recording, saying `said` meanwhile; its task's page opens once created, else the recording is kept. */
  upload(file: FileToUpload, said: string): Promise<void>;
  cancel(): void;
  /** Completes again an upload whose bytes are all stored (after a 429 or 403 was fixed). */
  completeAgain(stored: CompletionFailed, file: FileToUpload): Promise<void>;
  /** Aborts now, rather than leaving it to expire tomorrow, a kept recording's upload whose bytes are stored but never completed. */
  abortStored(): void;
};

/**
 * A recording's upload, through the file upload's flow (sign, parts, complete, with its progress, Cancel and
 * refusals), with or without telling speakers apart as `diarization` says when it starts. Leaving the page cancels it.
 */
export function useRecordingUpload(phase: Phase, setPhase: (next: Phase) => void, diarization: boolean): RecordingUpload {
  const { route } = useLocation();
  // Read when an upload starts, which may be from a render's handler long past (a microphone that stopped by itself).
  const speakers = useRef(diarization);
  speakers.current = diarization;
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  const upload = async (file: FileToUpload, said: string) => {
    const controller = new AbortController();
    running.current = controller;
    const meter = new ProgressMeter(file.size);
    setPhase({ kind: "uploading", file, rate: meter.sample(0, performance.now()), said });
    try {
      // XHR reports progress once more as it is aborted: after Cancel, that must not bring the upload back.
      const onProgress = (sent: number) => {
        if (!controller.signal.aborted) setPhase({ kind: "uploading", file, rate: meter.sample(sent, performance.now()), said });
      };
      const task = await uploadFile(apiTransport({ speakerDiarization: speakers.current }), file, { signal: controller.signal, onProgress });
      route(`/tasks/${task.id}`);
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof UploadCancelled) setPhase({ kind: "kept", file, said: "The upload was cancelled.", failed: false, stored: null, again: true });
      else if (error instanceof CompletionFailed) setPhase({ kind: "kept", file, said: error.message, failed: true, stored: error, again: true });
      else setPhase({ kind: "kept", file, said: ApiError.of(error).message, failed: true, stored: null, again: true });
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  const cancel = () => {
    running.current?.abort();
    running.current = null;
    if (phase.kind === "uploading")
      setPhase({
        kind: "kept",
        file: phase.file,
        said: "The upload was cancelled, and the server keeps none of it.",
        failed: false,
        stored: null,
        again: true,
      });
  };

  const completeAgain = async (stored: CompletionFailed, file: FileToUpload) => {
    try {
      route(`/tasks/${(await apiTransport({ speakerDiarization: speakers.current }).complete(stored.session, file)).id}`);
    } catch (error) {
      setPhase({ kind: "kept", file, said: ApiError.of(error).message, failed: true, stored, again: true });
    }
  };

  const abortStored = () => {
    if (phase.kind === "kept" && phase.stored)
      apiTransport({ speakerDiarization: false })
        .abort(phase.stored.session)
        .catch(() => undefined);
  };

  return { upload, cancel, completeAgain, abortStored };
}
