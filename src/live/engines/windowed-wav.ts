import { rm } from "node:fs/promises";
import type { Recognition, RecognizeOptions, SpeechEngine } from "../../transcription/engine.ts";
import { sampleRate, wavHeader } from "../../transcription/wav.ts";

/** Milliseconds of `count` samples at the live rate (16 kHz, the pipeline's). */
export const samplesToMs = (count: number) => (count * 1000) / sampleRate;

/**
 * Recognises samples with a batch engine, which reads WAV files: writes them as a bare 16 kHz mono WAV at `path`,
 * runs the engine, and removes the file whatever happens (the engine has read it by the time it answers or fails).
 */
export async function recognizeSamples(
  engine: SpeechEngine,
  samples: Int16Array,
  path: string,
  options: Omit<RecognizeOptions, "durationMs">,
): Promise<Recognition> {
  try {
    // Int16Array is little-endian on every platform Bun runs on, as WAV's PCM is.
    await Bun.write(path, new Blob([wavHeader(samples.byteLength), new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength)]));
    return await engine.recognize(path, { ...options, durationMs: Math.round(samplesToMs(samples.length)) });
  } finally {
    await rm(path, { force: true });
  }
}
