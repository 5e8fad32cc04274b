import { useLocation } from "preact-iso";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { ApiError, api, call } from "../api.ts";
import { apiTransport, uploadFormats } from "../upload/api-transport.ts";
import type { UploadFormats } from "../upload/file-check.ts";
import { CompletionFailed, UploadCancelled, uploadFile, type FileToUpload } from "../upload/multipart-upload.ts";
import { ProgressMeter } from "../upload/progress-meter.ts";
import { UploadProgress } from "../upload/upload-progress.tsx";
import type { Microphone } from "./microphone.ts";
import { noTimeLeft, problemOf, statusOf, stopSaid, type Phase } from "./phase.ts";
import { recorderTypes, recordingFile } from "./recording-file.ts";
import { RecordingView, type StopReason } from "./recording-view.tsx";
import { microphoneProblem, noAcceptedType, recordingUnavailable, type RecordingEnvironment } from "./support.ts";

/** This browser's facts (support.ts says what they mean). */
const browserEnvironment = (): RecordingEnvironment => ({
  isSecureContext: globalThis.isSecureContext === true,
  hasGetUserMedia: typeof navigator.mediaDevices?.getUserMedia === "function",
  hasMediaRecorder: typeof MediaRecorder === "function",
});

/**
 * Record from the microphone and transcribe: the browser asks for the microphone only when Record is pressed;
 * the recording is uploaded through the file upload's flow (sign, parts, complete, with its progress, Cancel and
 * refusals) as "Recording 2026-11-26 14:03.webm", in the type MediaRecorder made. A state change is said in a
 * live region; a refusal in an alert. Leaving the page ends the recording and cancels its upload, and a
 * reload or a closed tab asks first.
 */
export function RecordPanel() {
  const { route } = useLocation();
  const unavailable = recordingUnavailable(browserEnvironment());
  const [phase, setPhase] = useState<Phase>({ kind: "idle", problem: null });
  const [diarization, setDiarization] = useState(false);
  const speakers = useRef(diarization);
  speakers.current = diarization;
  const microphone = useRef<Microphone | null>(null);
  const running = useRef<AbortController | null>(null);
  const formats = useRef<UploadFormats | null>(null);
  const maxSeconds = useRef<number | null>(null);
  const gone = useRef(false);
  const starting = useRef(false);
  const first = useRef<HTMLButtonElement>(null);

  useEffect(
    () => () => {
      gone.current = true;
      microphone.current?.discard();
      running.current?.abort();
    },
    [],
  );
  // Something recorded and not yet a task would be lost with the page.
  const unsaved = phase.kind === "recording" || phase.kind === "uploading" || phase.kind === "kept";
  useEffect(() => {
    if (!unsaved) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener("beforeunload", ask);
    return () => removeEventListener("beforeunload", ask);
  }, [unsaved]);
  // Back from a recording or an upload (not on the page's first draw), focus goes to the first button: the one
  // pressed is gone. In the same commit as the render, so that it never falls to the page in between.
  const shown = useRef(phase.kind);
  useLayoutEffect(() => {
    if (shown.current !== phase.kind && (phase.kind === "idle" || phase.kind === "kept")) first.current?.focus();
    shown.current = phase.kind;
  }, [phase.kind]);

  const start = async () => {
    // A second press while the browser asks (the button stays, aria-disabled, to keep the focus) does nothing.
    if (starting.current) return;
    starting.current = true;
    setPhase({ kind: "starting" });
    try {
      const [accepted, user] = await Promise.all([uploadFormats(), call(api.GET("/api/user")).catch(() => null)]);
      formats.current = accepted;
      const remaining = user?.balance.remaining_seconds ?? null;
      maxSeconds.current = remaining;
      if (remaining !== null && remaining <= 0) return setPhase({ kind: "idle", problem: noTimeLeft });
      const [type] = recorderTypes(accepted, (candidate) => MediaRecorder.isTypeSupported(candidate));
      if (type === undefined) return setPhase({ kind: "idle", problem: { message: noAcceptedType } });
      const { openMicrophone } = await import("./microphone.ts");
      let opened: Microphone;
      try {
        opened = await openMicrophone(type, () => finish("interrupted"));
      } catch (error) {
        return setPhase({ kind: "idle", problem: { message: microphoneProblem(error) } });
      }
      // The page was left while the browser asked: let the microphone go at once.
      if (gone.current) return opened.discard();
      microphone.current = opened;
      setPhase({ kind: "recording", microphone: opened, maxSeconds: remaining, maxBytes: accepted.max_size });
    } catch (error) {
      setPhase({ kind: "idle", problem: { message: ApiError.of(error).message } });
    } finally {
      starting.current = false;
    }
  };

  const finish = async (reason: StopReason | "interrupted") => {
    const current = microphone.current;
    if (!current || !formats.current) return;
    microphone.current = null;
    const recorded = await current.stop();
    const made = recordingFile(recorded, formats.current);
    if (!made.ok) return setPhase({ kind: "idle", problem: { message: made.reason } });
    await upload(made.file, stopSaid(reason, recorded.seconds, maxSeconds.current));
  };

  const discard = () => {
    microphone.current?.discard();
    microphone.current = null;
    // Bytes stored but never completed: their upload is aborted now rather than left to expire tomorrow.
    if (phase.kind === "kept" && phase.stored)
      apiTransport({ speakerDiarization: false })
        .abort(phase.stored.session)
        .catch(() => undefined);
    setPhase({ kind: "idle", problem: null });
  };

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
      if (error instanceof UploadCancelled) setPhase({ kind: "kept", file, said: "The upload was cancelled.", failed: false, stored: null });
      else if (error instanceof CompletionFailed) setPhase({ kind: "kept", file, said: error.message, failed: true, stored: error });
      else setPhase({ kind: "kept", file, said: ApiError.of(error).message, failed: true, stored: null });
    } finally {
      if (running.current === controller) running.current = null;
    }
  };

  const cancel = () => {
    running.current?.abort();
    running.current = null;
    if (phase.kind === "uploading")
      setPhase({ kind: "kept", file: phase.file, said: "The upload was cancelled, and the server keeps none of it.", failed: false, stored: null });
  };

  /** Complete again an upload whose bytes are all stored (after a 429 or 403 was fixed). */
  const completeAgain = async (stored: CompletionFailed, file: FileToUpload) => {
    try {
      route(`/tasks/${(await apiTransport({ speakerDiarization: speakers.current }).complete(stored.session, file)).id}`);
    } catch (error) {
      setPhase({ kind: "kept", file, said: ApiError.of(error).message, failed: true, stored });
    }
  };

  if (unavailable) {
    return (
      <div class="record">
        <p id="record-unavailable" class="hint">
          {unavailable}
        </p>
        <button type="button" disabled aria-describedby="record-unavailable">
          Record
        </button>
      </div>
    );
  }
  const problem = problemOf(phase);
  const status = statusOf(phase);
  const choosing = phase.kind === "idle" || phase.kind === "starting";
  return (
    <div class="record">
      {choosing && (
        <p id="record-hint" class="hint">
          The browser asks to use the microphone when you press Record. The recording is transcribed when you stop it.
        </p>
      )}
      <div role="status">{status && <p>{status}</p>}</div>
      <div role="alert">
        {problem && (
          <p class="form-error">
            {problem.message} {problem.account && <a href="/account">Top up or change your plan on the Account page.</a>}
          </p>
        )}
      </div>
      {phase.kind === "recording" && (
        <RecordingView microphone={phase.microphone} maxSeconds={phase.maxSeconds} maxBytes={phase.maxBytes} onStop={finish} onDiscard={discard} />
      )}
      {phase.kind === "uploading" && <UploadProgress name={phase.file.name} rate={phase.rate} onCancel={cancel} />}
      {phase.kind === "kept" && (
        <div class="actions">
          {phase.stored ? (
            <button type="button" ref={first} onClick={() => phase.stored && completeAgain(phase.stored, phase.file)}>
              Create the transcription again
            </button>
          ) : (
            <button type="button" ref={first} class="primary" onClick={() => upload(phase.file, "Uploading the recording again…")}>
              Upload the recording again
            </button>
          )}
          <button type="button" onClick={discard}>
            Discard the recording
          </button>
        </div>
      )}
      {phase.kind !== "uploading" && (
        <div class="field check">
          <input id="record-diarization" type="checkbox" checked={diarization} onChange={(event) => setDiarization(event.currentTarget.checked)} />
          <label for="record-diarization">Tell speakers apart (speaker diarization)</label>
        </div>
      )}
      {choosing && (
        // aria-disabled, not disabled: a disabled button would drop the keyboard's focus to the page.
        <button
          type="button"
          class="primary"
          ref={first}
          onClick={start}
          aria-disabled={phase.kind === "starting" ? "true" : undefined}
          aria-describedby="record-hint"
        >
          Record
        </button>
      )}
    </div>
  );
}
