import { useEffect, useRef, useState } from "preact/hooks";
import type { UploadFormats } from "../upload/file-check.ts";
import type { Microphone } from "./microphone.ts";
import { openRecording } from "./open-recording.ts";
import { stopSaid, type Phase } from "./phase.ts";
import { recordingFile } from "./recording-file.ts";
import type { StopReason } from "./recording-view.tsx";
import { useRecordingUpload, type RecordingUpload } from "./use-recording-upload.ts";

export type Recording = RecordingUpload & {
  phase: Phase;
  /** Asks for the microphone and records. */
  start(): Promise<void>;
  /** Ends the recording and uploads it. */
  finish(reason: StopReason): Promise<void>;
  /** Ends the recording, or drops a kept one, keeping nothing. */
  discard(): void;
};

/**
 * The record panel's flow, from Record to the task (or back, with the recording kept): the microphone is asked for
 * on Record, and what it recorded is uploaded once it stops. Leaving the page lets the microphone go.
 */
export function useRecording(diarization: boolean): Recording {
  const [phase, setPhase] = useState<Phase>({ kind: "idle", problem: null });
  const uploads = useRecordingUpload(phase, setPhase, diarization);
  const microphone = useRef<Microphone | null>(null);
  const formats = useRef<UploadFormats | null>(null);
  const maxSeconds = useRef<number | null>(null);
  const gone = useRef(false);
  const starting = useRef(false);
  useEffect(
    () => () => {
      gone.current = true;
      microphone.current?.discard();
    },
    [],
  );

  const start = async () => {
    // A second press while the browser asks (the button stays, aria-disabled, to keep the focus) does nothing.
    if (starting.current) return;
    starting.current = true;
    setPhase({ kind: "starting" });
    try {
      const opened = await openRecording(() => finish("interrupted"));
      if (!opened.ok) return setPhase({ kind: "idle", problem: opened.problem });
      // The page was left while the browser asked: let the microphone go at once.
      if (gone.current) return opened.microphone.discard();
      microphone.current = opened.microphone;
      formats.current = opened.formats;
      maxSeconds.current = opened.maxSeconds;
      setPhase({ kind: "recording", microphone: opened.microphone, maxSeconds: opened.maxSeconds, maxBytes: opened.formats.max_size });
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
    await uploads.upload(made.file, stopSaid(reason, recorded.seconds, maxSeconds.current));
  };

  const discard = () => {
    microphone.current?.discard();
    microphone.current = null;
    uploads.abortStored();
    setPhase({ kind: "idle", problem: null });
  };

  return { ...uploads, phase, start, finish, discard };
}
