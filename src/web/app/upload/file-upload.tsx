import { useLocation } from "preact-iso";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { apiTransport, uploadFormats, type CreatedTask } from "./api-transport.ts";
import { DropZone } from "./drop-zone.tsx";
import { acceptAttribute, checkFile, type UploadFormats } from "./file-check.ts";
import { CompletionFailed, UploadCancelled, uploadFile, type FileToUpload } from "./multipart-upload.ts";
import { ProgressMeter, type Rate } from "./progress-meter.ts";
import { UploadProgress } from "./upload-progress.tsx";
import { bytes } from "./units.ts";

type Phase =
  | { kind: "choosing" }
  | { kind: "uploading"; file: FileToUpload; rate: Rate }
  | { kind: "cancelled" }
  | { kind: "failed"; message: string; stored: CompletionFailed | null; file: FileToUpload | null };

/** Where a new task is shown: its page, which follows it from pending to finished. */
const taskPath = (task: CreatedTask) => `/tasks/${task.id}`;

/**
 * An audio or video file, picked or dropped, checked against the formats the API lists (nothing is sent for a
 * file it would refuse), then uploaded in parts straight to storage with its progress, and completed into a task.
 * Leaving the page cancels the upload.
 */
export function FileUpload() {
  const { route } = useLocation();
  const [formats, setFormats] = useState<UploadFormats | null>(null);
  const [chosen, setChosen] = useState<FileToUpload | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [diarization, setDiarization] = useState(false);
  const [phase, setPhase] = useState<Phase>({ kind: "choosing" });
  const running = useRef<AbortController | null>(null);
  const submit = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    uploadFormats()
      .then(setFormats)
      .catch((error: unknown) => setRefusal(`The list of accepted formats could not be loaded: ${ApiError.of(error).message}`));
    return () => running.current?.abort();
  }, []);
  // Back from an upload that did not finish, focus returns to the button that started it (its form was gone), in
  // the same commit as the message: between the two, focus would sit on the page's body.
  useLayoutEffect(() => {
    if (phase.kind === "cancelled" || phase.kind === "failed") submit.current?.focus();
  }, [phase.kind]);

  const choose = (file: File) => {
    setPhase({ kind: "choosing" });
    if (!formats) return;
    const check = checkFile(file, formats);
    setChosen(check.ok ? { name: file.name, contentType: check.contentType, size: file.size, body: file } : null);
    setRefusal(check.ok ? null : check.reason);
  };

  const start = async (event: SubmitEvent) => {
    event.preventDefault();
    if (!chosen || running.current) return;
    const controller = new AbortController();
    running.current = controller;
    const meter = new ProgressMeter(chosen.size);
    setPhase({ kind: "uploading", file: chosen, rate: meter.sample(0, performance.now()) });
    try {
      // An aborted XHR reports progress once more as it stops: that must not bring the progress view back after Cancel.
      const onProgress = (sent: number) => {
        if (!controller.signal.aborted) setPhase({ kind: "uploading", file: chosen, rate: meter.sample(sent, performance.now()) });
      };
      const task = await uploadFile(apiTransport({ speakerDiarization: diarization }), chosen, { signal: controller.signal, onProgress });
      route(taskPath(task));
    } catch (error) {
      if (controller.signal.aborted) return;
      if (error instanceof UploadCancelled) setPhase({ kind: "cancelled" });
      else if (error instanceof CompletionFailed) setPhase({ kind: "failed", message: error.message, stored: error, file: chosen });
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

  /** Complete again an upload whose bytes are all stored (after a 429 or 403 was fixed). */
  const completeAgain = async (stored: CompletionFailed, file: FileToUpload) => {
    try {
      route(taskPath(await apiTransport({ speakerDiarization: diarization }).complete(stored.session, file)));
    } catch (error) {
      setPhase({ kind: "failed", message: ApiError.of(error).message, stored, file });
    }
  };

  if (phase.kind === "uploading") {
    return <UploadProgress name={phase.file.name} rate={phase.rate} onCancel={cancel} />;
  }
  const names = formats?.formats.map((format) => format.extension).join(", ");
  return (
    <form onSubmit={start} aria-labelledby="upload-heading">
      <DropZone accept={formats ? acceptAttribute(formats) : undefined} disabled={!formats} onChoose={choose}>
        Drop a file here or choose one: {names ?? "…"}, up to {formats ? bytes(formats.max_size) : "…"}.
      </DropZone>
      <div role="alert">{refusal && <p class="form-error">{refusal}</p>}</div>
      {chosen && (
        <p class="chosen">
          {chosen.name} · {bytes(chosen.size)}
        </p>
      )}
      <div class="field check">
        <input id="upload-diarization" type="checkbox" checked={diarization} onChange={(event) => setDiarization(event.currentTarget.checked)} />
        <label for="upload-diarization">Tell speakers apart (speaker diarization)</label>
      </div>
      <div role="status">
        {phase.kind === "cancelled" && <p>The upload was cancelled; nothing of it was kept.</p>}
        {phase.kind === "failed" && <p class="form-error">{phase.message}</p>}
      </div>
      {phase.kind === "failed" && phase.stored && phase.file && (
        <p>
          The file is stored until tomorrow.{" "}
          <button type="button" onClick={() => phase.stored && phase.file && completeAgain(phase.stored, phase.file)}>
            Create the transcription again
          </button>
        </p>
      )}
      <button type="submit" class="primary" ref={submit} disabled={!chosen}>
        Upload and transcribe
      </button>
    </form>
  );
}
