import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { LiveCaptions } from "../live/live-captions.tsx";
import { UploadProgress } from "../upload/upload-progress.tsx";
import { EndedActions } from "./ended-actions.tsx";
import { KeptActions } from "./kept-actions.tsx";
import { problemOf, statusOf, type Phase } from "./phase.ts";
import { RecordingView } from "./recording-view.tsx";
import { recordingUnavailable, type RecordingEnvironment } from "./support.ts";
import { useRecording } from "./use-recording.ts";

/** This browser's facts (support.ts says what they mean). */
const browserEnvironment = (): RecordingEnvironment => ({
  isSecureContext: globalThis.isSecureContext === true,
  hasGetUserMedia: typeof navigator.mediaDevices?.getUserMedia === "function",
  hasMediaRecorder: typeof MediaRecorder === "function",
});

/**
 * Record from the microphone and transcribe: the browser asks for the microphone only when Record is pressed;
 * its words show as they are spoken (a live transcription session, which becomes the task when it stops), or,
 * where that is not available, the recording is uploaded through the file upload's flow (sign, parts, complete,
 * with its progress, Cancel and refusals) as "Recording 2026-11-26 14:03.webm", in the type MediaRecorder made.
 * A state change is said in a live region; a refusal in an alert. Leaving the page ends the recording and cancels
 * its upload, and a reload or a closed tab asks first.
 */
export function RecordPanel() {
  const unavailable = recordingUnavailable(browserEnvironment());
  return unavailable ? <RecordUnavailable reason={unavailable} /> : <Recorder />;
}

/** Record, offered disabled with the reason this page cannot record. */
function RecordUnavailable({ reason }: { reason: string }) {
  return (
    <div class="record">
      <p id="record-unavailable" class="hint">
        {reason}
      </p>
      <button type="button" disabled aria-describedby="record-unavailable">
        Record
      </button>
    </div>
  );
}

/** Something recorded and not yet a task would be lost with the page: a reload or a closed tab asks first. */
function useAskBeforeUnload(phase: Phase): void {
  const unsaved = phase.kind === "recording" || phase.kind === "closing" || phase.kind === "uploading" || phase.kind === "kept";
  useEffect(() => {
    if (!unsaved) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    addEventListener("beforeunload", ask);
    return () => removeEventListener("beforeunload", ask);
  }, [unsaved]);
}

/** The live region that says each change, and the alert that says a refusal. */
function RecordNotices({ phase }: { phase: Phase }) {
  const problem = problemOf(phase);
  const status = statusOf(phase);
  return (
    <>
      <div role="status">{status && <p>{status}</p>}</div>
      <div role="alert">
        {problem && (
          <p class="form-error">
            {problem.message} {problem.account && <a href="/account">Top up or change your plan on the Account page.</a>}
          </p>
        )}
      </div>
    </>
  );
}

/** The panel where this browser can record: Record, then the recording, its upload, or the recording kept. */
function Recorder() {
  const [diarization, setDiarization] = useState(false);
  const recording = useRecording(diarization);
  const { phase } = recording;
  const first = useRef<HTMLButtonElement>(null);
  useAskBeforeUnload(phase);
  // Back from a recording or an upload (not on the page's first draw), focus goes to the first button: the one
  // pressed is gone. In the same commit as the render, so that it never falls to the page in between.
  const shown = useRef(phase.kind);
  useLayoutEffect(() => {
    if (shown.current !== phase.kind && (phase.kind === "idle" || phase.kind === "kept" || phase.kind === "ended")) first.current?.focus();
    shown.current = phase.kind;
  }, [phase.kind]);

  const choosing = phase.kind === "idle" || phase.kind === "starting";
  return (
    <div class="record">
      {choosing && (
        <p id="record-hint" class="hint">
          The browser asks to use the microphone when you press Record. The recording is transcribed when you stop it.
        </p>
      )}
      <RecordNotices phase={phase} />
      {phase.kind === "recording" && (
        <RecordingView
          microphone={phase.microphone}
          live={phase.live}
          maxSeconds={phase.maxSeconds}
          maxBytes={phase.maxBytes}
          onStop={recording.finish}
          onDiscard={recording.discard}
        />
      )}
      {(phase.kind === "closing" || phase.kind === "ended") && <LiveCaptions live={phase.live} stopped />}
      {phase.kind === "ended" && <EndedActions ended={phase} record={recording.start} first={first} />}
      {phase.kind === "uploading" && <UploadProgress name={phase.file.name} rate={phase.rate} onCancel={recording.cancel} />}
      {phase.kind === "kept" && <KeptActions kept={phase} recording={recording} first={first} />}
      {/* Speakers are asked for as a live session opens: the switch is gone while one runs. */}
      {phase.kind !== "uploading" && phase.kind !== "closing" && !(phase.kind === "recording" && phase.live) && (
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
          onClick={recording.start}
          aria-disabled={phase.kind === "starting" ? "true" : undefined}
          aria-describedby="record-hint"
        >
          Record
        </button>
      )}
    </div>
  );
}
