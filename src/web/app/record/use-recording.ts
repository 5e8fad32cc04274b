import { useLocation } from "preact-iso";
import { useEffect, useRef, useState } from "preact/hooks";
import type { LiveTranscription } from "../live/live-transcription.ts";
import type { UploadFormats } from "../upload/file-check.ts";
import type { Microphone } from "./microphone.ts";
import { openRecording } from "./open-recording.ts";
import { closingSaid, liveFallbackSaid, stopSaid, type Phase } from "./phase.ts";
import { recordingFile } from "./recording-file.ts";
import type { StopReason } from "./recording-view.tsx";
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
 * once it stops. Where that session is not available, or does not become a task, what MediaRecorder recorded
 * all along is uploaded instead, so that nothing recorded is lost. Leaving the page lets the microphone go.
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
      setPhase({ kind: "recording", microphone: opened.microphone, live: opened.live, maxSeconds: opened.maxSeconds, maxBytes: opened.formats.max_size });
    } finally {
      starting.current = false;
    }
  };

  const finish = async (reason: StopReason | "interrupted") => {
    const current = microphone.current;
    const accepted = formats.current;
    if (!current || !accepted) return;
    microphone.current = null;
    const session = live.current;
    live.current = null;
    const streaming = session !== null && (session.state() === "live" || session.state() === "connecting");
    if (!streaming) session?.abandon();
    if (session && streaming) setPhase({ kind: "closing", live: session, said: closingSaid(reason, current.seconds(), maxSeconds.current) });
    const [recorded, taskId] = await Promise.all([current.stop(), streaming ? session.finish() : null]);
    if (gone.current) return;
    if (taskId !== null) return route(`/tasks/${taskId}`);
    const made = recordingFile(recorded, accepted);
    if (!made.ok) return setPhase({ kind: "idle", problem: { message: made.reason } });
    await uploads.upload(made.file, streaming ? liveFallbackSaid : stopSaid(reason, recorded.seconds, maxSeconds.current));
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
