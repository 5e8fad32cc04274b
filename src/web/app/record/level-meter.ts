/**
 * The microphone's loudness for the level meter, read from an AnalyserNode on the recorded stream.
 *
 * An AnalyserNode rather than an AudioWorklet: it reads the level on the page's own thread, with no worklet
 * module to fetch (none for the Content-Security-Policy's `worker-src`/`script-src` to allow) and nothing to
 * post between threads; a few times a frame is all a meter needs.
 */
import { levelOf } from "./level.ts";

export type LevelMeter = {
  /** The input's loudness now, 0 to 1 (levelOf); null where the browser gave no audio graph. */
  level(): number | null;
  /** Lets the audio graph go. */
  close(): void;
};

/** The size of the block of samples each reading takes. */
const samplesPerReading = 2048;

/** The meter is a help, not a need: without an audio graph the recording goes on, the meter hidden. */
export function openLevelMeter(stream: MediaStream): LevelMeter {
  let audio: AudioContext | null = null;
  let analyser: AnalyserNode | null = null;
  try {
    audio = new AudioContext();
    analyser = audio.createAnalyser();
    analyser.fftSize = samplesPerReading;
    audio.createMediaStreamSource(stream).connect(analyser);
    // Created after awaits, it may start suspended (autoplay rules); the press that started it lets it resume.
    audio.resume().catch(() => undefined);
  } catch {
    analyser = null;
  }
  const samples = new Float32Array(samplesPerReading);
  return {
    level() {
      if (!analyser) return null;
      analyser.getFloatTimeDomainData(samples);
      return levelOf(samples);
    },
    close() {
      audio?.close().catch(() => undefined);
    },
  };
}
