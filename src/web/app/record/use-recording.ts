import { useLocation } from "preact-iso";
import { useEffect, useRef, useState } from "preact/hooks";
import type { LiveTranscription } from "../live/live-transcription.ts";
import type { UploadFormats } from "../upload/file-check.ts";
import type { Microphone } from "./microphone.ts";
import { openRecording } from "./open-recording.ts";
import { afterStop } from "./after-stop.ts";
import type { Phase } from "./phase.ts";
import { closingSaid, liveEndedSaid, type StopReason } from "./said.ts";
import { useRecordingUpload, type RecordingUpload } from "./use-recording-upload.ts";

export type Recording = RecordingUpload & {
  phase: Phase;
  /** Asks for the microphone and records. */
  start(): Promise<void>;
  /** Ends the recording: opens the task its live session became, else uploads it. */
  finish(reason: StopReason): Promise<void>;
  /** Ends the recording, or drops a kept one, keeping nothing. */
  discard(): void;
};

/**
 * The record panel's flow, from Record to the task (or back, with the recording kept): the microphone is asked for
 * on Record, and its audio streams to a live transcription session (captions as it is spoken) whose task opens
 * once it stops. The task a session names is the recording's outcome, whenever it comes: a session the server
 * ends before Stop stops the recording there, and its audio is never uploaded too. Where the session is not
 * available, or says it kept nothing, what MediaRecorder recorded all along is uploaded instead, so that nothing
 * recorded is lost; where it gives no answer (cut off, or slow), the recording is kept in the page for the person
 * to upload or discard, since the server may have kept it already. Leaving the page lets the microphone go.
 */
export function useRecording(diarization: boolean): Recording {
  const [phase, setPhase] = useState<Phase>({ kind: "idle", problem: null });
  const uploads = useRecordingUpload(phase, setPhase, diarization);
  const { route } = useLocation();
  const microphone = useRef<Microphone | null>(null);
  const live = useRef<LiveTranscription | null>(null);
  const formats = useRef<UploadFormats | null>(null);
  const maxSeconds = useRef<number | null>(null);
  const gone = useRef(false);
  const starting = useRef(false);
  useEffect(
    () => () => {
      gone.current = true;
      microphone.current?.discard();
      live.current?.abandon();
    },
    [],
  );

  const start = async () => {
    // A second press while the browser asks (the button stays, aria-disabled, to keep the focus) does nothing.
    if (starting.current) return;
    starting.current = true;
    setPhase({ kind: "starting" });
    try {
      const opened = await openRecording(() => finish("interrupted"), diarization);
      if (!opened.ok) return setPhase({ kind: "idle", problem: opened.problem });
      // The page was left while the browser asked: let the microphone go at once.
      if (gone.current) return (opened.microphone.discard(), opened.live?.abandon());
      microphone.current = opened.microphone;
      live.current = opened.live;
      formats.current = opened.formats;
      maxSeconds.current = opened.maxSeconds;
      opened.live?.subscribe(endedByServer);
      setPhase({ kind: "recording", microphone: opened.microphone, live: opened.live, maxSeconds: opened.maxSeconds, maxBytes: opened.formats.max_size });
    } finally {
      starting.current = false;
    }
  };

  // The session may end before Stop (the service stopping, the idle timeout, the balance): see endedBeforeStop.
  const endedByServer = () => gone.current || endedBeforeStop(microphone, live, setPhase);

  const finish = async (reason: StopReason | "interrupted") => {
    const current = microphone.current;
    const accepted = formats.current;
    if (!current || !accepted) return;
    microphone.current = null;
    const session = live.current;
    live.current = null;
    const streaming = session !== null && session.outcome() === null;
    if (session && streaming) setPhase({ kind: "closing", live: session, said: closingSaid(reason, current.seconds(), maxSeconds.current) });
    const [recorded, outcome] = await Promise.all([current.stop(), session ? session.finish() : ({ kind: "nothing" } as const)]);
    if (gone.current) return;
    const next = afterStop(outcome, { recorded, accepted, reason, maxSeconds: maxSeconds.current, streaming });
    if (next.kind === "open") route(`/tasks/${next.taskId}`);
    else if (next.kind === "refused") setPhase({ kind: "idle", problem: { message: next.reason } });
    else if (next.kind === "keep") setPhase({ kind: "kept", file: next.file, said: next.said, failed: false, stored: null, again: false });
    else await uploads.upload(next.file, next.said);
  };

  const discard = () => {
    microphone.current?.discard();
    microphone.current = null;
    live.current?.abandon();
    live.current = null;
    uploads.abortStored();
    setPhase({ kind: "idle", problem: null });
  };

  return { ...uploads, phase, start, finish, discard };
}

/**
 * The session ended before Stop and named its task: that task is the recording's transcription, so the recording
 * stops here and its bytes are dropped (the server has the audio); going on would record into nothing.
 */
function endedBeforeStop(microphone: { current: Microphone | null }, live: { current: LiveTranscription | null }, setPhase: (next: Phase) => void): void {
  const current = microphone.current;
  const session = live.current;
  const outcome = session?.outcome();
  if (!current || !session || outcome?.kind !== "task") return;
  microphone.current = null;
  live.current = null;
  const seconds = current.seconds();
  current.discard();
  session.abandon();
  setPhase({ kind: "ended", taskId: outcome.taskId, live: session, said: liveEndedSaid(seconds) });
}
