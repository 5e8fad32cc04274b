/**
 * The microphone's samples as the live transcription takes them: 16 kHz mono PCM16 little-endian, base64 in
 * each `input_audio_buffer.append`. Pure, so that it is tested without a browser; the AudioWorklet
 * (pcm-worklet.ts) runs the Downsampler on the audio thread, the page encodes what it posts.
 */

/** The rate the live transcription is sent at: the server's engines work at 16 kHz, so sending more is only bytes. */
export const liveSampleRate = 16_000;

/** The worklet processor's name (pcm-worklet.ts), which the page's AudioWorkletNode asks for. */
export const pcmProcessorName = "scribe-pcm16";

/**
 * How many zero crossings of the low-pass's sinc each side of its centre: 109 taps at 48 kHz, an edge from about
 * 6 to 8.5 kHz (speech's own content stops around there), 3.5 M multiplications a second on the audio thread.
 */
const zeroCrossings = 16;

/** A windowed-sinc low-pass (Blackman window) at `cutoff` cycles per input sample, its taps summing to 1. */
function lowPassTaps(cutoff: number): Float32Array {
  // At or above half the input rate nothing needs removing: one tap, the sample itself.
  if (cutoff >= 0.5) return Float32Array.of(1);
  const half = Math.ceil(zeroCrossings / (2 * cutoff));
  const taps = new Float32Array(2 * half + 1);
  let sum = 0;
  for (let j = -half; j <= half; j++) {
    const x = 2 * cutoff * j;
    const sinc = j === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const phase = (Math.PI * (j + half)) / half;
    const blackman = 0.42 - 0.5 * Math.cos(phase) + 0.08 * Math.cos(2 * phase);
    taps[j + half] = sinc * blackman;
    sum += sinc * blackman;
  }
  for (let i = 0; i < taps.length; i++) taps[i]! /= sum;
  return taps;
}

/**
 * Turns float samples at the audio context's rate (48 or 44.1 kHz, whatever the device gives) into 16 kHz PCM16,
 * block after block, keeping what a later block needs: the input is low-passed below 0.45 × 16 kHz (no aliasing
 * of the upper band into speech), then read at each output instant by linear interpolation between two filtered
 * samples. Output instants are counted from the first sample, so that no rounding drifts over an hour.
 */
export class Downsampler {
  private readonly step: number;
  private readonly taps: Float32Array;
  private readonly half: number;
  /** Input not yet consumed, preceded by the history the filter needs; `base` is the absolute index of its first sample. */
  private buffer: Float32Array;
  private base: number;
  private produced = 0;

  constructor(inputRate: number, outputRate: number = liveSampleRate) {
    if (!(inputRate > 0 && outputRate > 0)) throw new RangeError(`sample rates must be positive (${inputRate} → ${outputRate})`);
    this.step = inputRate / outputRate;
    // Only a rate coming down needs the low-pass: at or below 16 kHz the samples pass as they are.
    this.taps = lowPassTaps(inputRate <= outputRate ? 0.5 : (0.45 * outputRate) / inputRate);
    this.half = (this.taps.length - 1) / 2;
    // Silence before the first sample, so the filter reads no index below zero.
    this.buffer = new Float32Array(this.half);
    this.base = -this.half;
  }

  /** The 16-bit samples that `input` completes (some of its last samples wait for the next block). */
  push(input: Float32Array): Int16Array {
    const joined = new Float32Array(this.buffer.length + input.length);
    joined.set(this.buffer);
    joined.set(input, this.buffer.length);
    this.buffer = joined;
    const end = this.base + joined.length;
    const out: number[] = [];
    for (;;) {
      const position = this.produced * this.step;
      const left = Math.floor(position);
      if (left + 1 + this.half >= end) break;
      const a = this.filtered(left);
      const b = this.filtered(left + 1);
      out.push(toPcm16(a + (b - a) * (position - left)));
      this.produced++;
    }
    const keepFrom = Math.floor(this.produced * this.step) - this.half;
    if (keepFrom > this.base) {
      this.buffer = this.buffer.slice(keepFrom - this.base);
      this.base = keepFrom;
    }
    return Int16Array.from(out);
  }

  /** The low-passed signal at absolute input index `index`. */
  private filtered(index: number): number {
    const start = index - this.half - this.base;
    let sum = 0;
    for (let j = 0; j < this.taps.length; j++) sum += this.taps[j]! * this.buffer[start + j]!;
    return sum;
  }
}

/** A float sample (-1…1, clipped beyond) as a 16-bit integer. */
export function toPcm16(sample: number): number {
  const clipped = Math.max(-1, Math.min(1, sample));
  return Math.round(clipped < 0 ? clipped * 32768 : clipped * 32767);
}

/** The samples' bytes, little-endian whatever the machine's order (the protocol says little-endian). */
export function pcm16Bytes(samples: Int16Array): Uint8Array {
  const bytes = new Uint8Array(samples.length * 2);
  const view = new DataView(bytes.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return bytes;
}

/** Base64 of the samples' bytes, as `input_audio_buffer.append`'s `audio` carries them. */
export function pcm16Base64(samples: Int16Array): string {
  const bytes = pcm16Bytes(samples);
  let binary = "";
  // In slices: String.fromCharCode takes its arguments on the stack.
  for (let i = 0; i < bytes.length; i += 0x2000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x2000));
  return btoa(binary);
}
