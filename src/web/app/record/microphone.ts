/**
 * The microphone while it records: getUserMedia (the browser asks for the permission here, so only when the
 * person presses Record), MediaRecorder for the bytes, and the level meter (level-meter.ts). Loaded with
 * `import()` on the first press, so that the page carries none of it until someone records.
 */
import { openLevelMeter } from "./level-meter.ts";
import type { Recorded } from "./recording-file.ts";

export type Microphone = {
  /** The type MediaRecorder records (e.g. "audio/webm;codecs=opus"). */
  readonly type: string;
  readonly startedAt: Date;
  /** The microphone's stream, which the live transcription also reads (src/web/app/live). */
  readonly stream: MediaStream;
  /** Seconds recorded so far. */
  seconds(): number;
  /** Bytes recorded so far (delivered each second). */
  bytes(): number;
  /** The input's loudness now, 0 to 1 (levelOf); null where the browser gave no audio graph. */
  level(): number | null;
  /** Ends the recording, lets the microphone go, and gives what was recorded. */
  stop(): Promise<Recorded>;
  /** Ends the recording and lets the microphone go, keeping nothing. */
  discard(): void;
};

/** Speech needs no more: Opus at 48 kb/s is transparent for a voice, and an hour is about 21 MiB. */
const audioBitsPerSecond = 48_000;

/**
 * Opens the microphone and starts recording as `type` (one MediaRecorder supports: see recorderTypes). Rejects
 * with getUserMedia's DOMException (microphoneProblem words it). `onInterrupted` is called once should the
 * recording end by itself: the microphone unplugged, the permission withdrawn, the recorder failing.
 */
export async function openMicrophone(type: string, onInterrupted: () => void): Promise<Microphone> {
  const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
  const release = () => {
    for (const track of stream.getTracks()) track.stop();
  };
  let recorder: MediaRecorder;
  try {
    recorder = new MediaRecorder(stream, { mimeType: type, audioBitsPerSecond });
  } catch (error) {
    release();
    throw error;
  }

  const meter = openLevelMeter(stream);

  const chunks: Blob[] = [];
  let bytes = 0;
  let wanted = false;
  const startedAt = new Date();
  const started = performance.now();
  let ended: number | null = null;
  const finished = new Promise<void>((resolve) => {
    recorder.onstop = () => {
      ended ??= performance.now();
      release();
      meter.close();
      resolve();
      if (!wanted) onInterrupted();
    };
  });
  recorder.ondataavailable = (event) => {
    if (event.data.size === 0) return;
    chunks.push(event.data);
    bytes += event.data.size;
  };
  // Ending every track (a microphone unplugged) stops the recorder by itself; an error stops it too.
  recorder.onerror = () => {
    if (recorder.state !== "inactive") recorder.stop();
  };
  // A chunk a second: the size is known as it grows (the largest upload), and a crash loses at most a second.
  recorder.start(1000);

  const end = () => {
    wanted = true;
    ended ??= performance.now();
    if (recorder.state !== "inactive") recorder.stop();
  };
  return {
    // Firefox names the type only once recording has started; until then, what was asked for.
    type: recorder.mimeType || type,
    startedAt,
    stream,
    seconds: () => ((ended ?? performance.now()) - started) / 1000,
    bytes: () => bytes,
    level: () => meter.level(),
    async stop() {
      end();
      await finished;
      const recordedType = recorder.mimeType || type;
      return { body: new Blob(chunks, { type: recordedType }), type: recordedType, startedAt, seconds: ((ended ?? performance.now()) - started) / 1000 };
    },
    discard() {
      end();
      chunks.length = 0;
    },
  };
}
