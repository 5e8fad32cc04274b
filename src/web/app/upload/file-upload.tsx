import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api.ts";
import { uploadFormats } from "./api-transport.ts";
import { DropZone } from "./drop-zone.tsx";
import { acceptAttribute, checkFile, type UploadFormats } from "./file-check.ts";
import type { FileToUpload } from "./multipart-upload.ts";
import { UploadProgress } from "./upload-progress.tsx";
import { RecognitionOptionsFields } from "./recognition-options.tsx";
import { useRecognitionOptions } from "./use-recognition-options.ts";
import { bytes } from "./units.ts";
import { useFileUpload, type UploadPhase } from "./use-file-upload.ts";

/** How an upload that did not finish ended, and, for one whose bytes are all stored, the way to complete it again. */
function UploadOutcome({ phase, onCompleteAgain }: { phase: UploadPhase; onCompleteAgain: () => void }) {
  return (
    <>
      <div role="status">
        {phase.kind === "cancelled" && <p>The upload was cancelled; nothing of it was kept.</p>}
        {phase.kind === "failed" && <p class="form-error">{phase.message}</p>}
      </div>
      {phase.kind === "failed" && phase.stored && phase.file && (
        <p>
          The file is stored until tomorrow.{" "}
          <button type="button" onClick={onCompleteAgain}>
            Create the transcription again
          </button>
        </p>
      )}
    </>
  );
}

/**
 * An audio or video file, picked or dropped, checked against the formats the API lists (nothing is sent for a
 * file it would refuse), then uploaded in parts straight to storage with its progress, and completed into a task.
 * Leaving the page cancels the upload.
 */
export function FileUpload() {
  const [formats, setFormats] = useState<UploadFormats | null>(null);
  const [chosen, setChosen] = useState<FileToUpload | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);
  const [diarization, setDiarization] = useState(false);
  const upload = useFileUpload();
  const recognition = useRecognitionOptions();
  const { phase } = upload;
  const submit = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    uploadFormats()
      .then(setFormats)
      .catch((error: unknown) => setRefusal(`The list of accepted formats could not be loaded: ${ApiError.of(error).message}`));
  }, []);
  // Back from an upload that did not finish, focus returns to the button that started it (its form was gone), in
  // the same commit as the message: between the two, focus would sit on the page's body.
  useLayoutEffect(() => {
    if (phase.kind === "cancelled" || phase.kind === "failed") submit.current?.focus();
  }, [phase.kind]);

  const choose = (file: File) => {
    upload.choose();
    if (!formats) return;
    const check = checkFile(file, formats);
    setChosen(check.ok ? { name: file.name, contentType: check.contentType, size: file.size, body: file } : null);
    setRefusal(check.ok ? null : check.reason);
  };
  /** What completes the upload; null (and the vocabulary focused, its problem said beside it) while the vocabulary is refused. */
  const completion = () => {
    const asked = recognition.request();
    if (asked === null) document.getElementById("upload-vocabulary")?.focus();
    return asked && { speakerDiarization: diarization, recognition: asked };
  };
  const start = (event: SubmitEvent) => {
    event.preventDefault();
    const options = completion();
    if (chosen && options) void upload.start(chosen, options);
  };
  const completeAgain = () => {
    const options = completion();
    if (phase.kind === "failed" && phase.stored && phase.file && options) void upload.completeAgain(phase.stored, phase.file, options);
  };
  // The API's 422 on completion (an engine no longer offered, a vocabulary entry it refused) shows beside the option.
  const refusedFields = phase.kind === "failed" && phase.stored ? ApiError.of(phase.stored.reason).fields : {};

  if (phase.kind === "uploading") {
    return <UploadProgress name={phase.file.name} rate={phase.rate} onCancel={upload.cancel} />;
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
      <RecognitionOptionsFields id="upload" options={recognition} errors={refusedFields} />
      <UploadOutcome phase={phase} onCompleteAgain={completeAgain} />
      <button type="submit" class="primary" ref={submit} disabled={!chosen}>
        Upload and transcribe
      </button>
    </form>
  );
}
