import { useLocation } from "preact-iso";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { apiTransport, type CompletionOptions, type CreatedTask } from "./api-transport.ts";
import { CompletionFailed, UploadCancelled, uploadFile, type FileToUpload } from "./multipart-upload.ts";
import { ProgressMeter, type Rate } from "./progress-meter.ts";

/** Where the file upload is, from choosing a file to its task (or back). */
export type UploadPhase =
  | { kind: "choosing" }
  | { kind: "uploading"; file: FileToUpload; rate: Rate }
  | { kind: "cancelled" }
  | { kind: "failed"; message: string; stored: CompletionFailed | null; file: FileToUpload | null };

export type FileUploading = {
  phase: UploadPhase;
  /** Back to choosing a file (another one was picked). */
  choose(): void;
  /** Uploads `file` in parts and completes it into a task, whose page is then opened; nothing while one runs. */
  start(file: FileToUpload, options: CompletionOptions): Promise<void>;
  cancel(): void;
  /** Completes again an upload whose bytes are all stored (after a 429 or 403 was fixed). */
  completeAgain(stored: CompletionFailed, file: FileToUpload, options: CompletionOptions): Promise<void>;
};

/** Where a new task is shown: its page, which follows it from pending to finished. */
const taskPath = (task: CreatedTask) => `/tasks/${task.id}`;

/** A file's upload with its progress, Cancel and refusals. Leaving the page cancels it. */
export function useFileUpload(): FileUploading {
  const { route } = useLocation();
  const [phase, setPhase] = useState<UploadPhase>({ kind: "choosing" });
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  const start = async (file: FileToUpload, options: CompletionOptions) => {
    if (running.current) return;
    const controller = new AbortController();
    running.current = controller;
    const meter = new ProgressMeter(file.size);
    setPhase({ kind: "uploading", file, rate: meter.sample(0, performance.now()) });
    try {
      // An aborted XHR reports progress once more as it stops: that must not bring the progress view back after Cancel.
      const onProgress = (sent: number) => {
        if (!controller.signal.aborted) setPhase({ kind: "uploading", file, rate: meter.sample(sent, performance.now()) });
      };
      const task = await uploadFile(apiTransport(options), file, { signal: controller.signal, onProgress });
      route(taskPath(task));
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof UploadCancelled) setPhase({ kind: "cancelled" });
      else if (error instanceof CompletionFailed) setPhase({ kind: "failed", message: error.message, stored: error, file });
      else setPhase({ kind: "failed", message: ApiError.of(error).message, stored: null, file: null });
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  const cancel = () => {
    running.current?.abort();
    running.current = null;
    setPhase({ kind: "cancelled" });
  };

  const completeAgain = async (stored: CompletionFailed, file: FileToUpload, options: CompletionOptions) => {
    try {
      route(taskPath(await apiTransport(options).complete(stored.session, file)));
    } catch (error) {
      // The new refusal's reason (a 422 names its fields), on the same stored upload.
      setPhase({ kind: "failed", message: ApiError.of(error).message, stored: new CompletionFailed(error, stored.session), file });
    }
  };

  return { phase, choose: () => setPhase({ kind: "choosing" }), start, cancel, completeAgain };
}
