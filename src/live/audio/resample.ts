/**
 * Sample-rate conversion for live audio: OpenAI's Realtime clients send 24 kHz, the recognizers take 16 kHz. 24 -> 16 kHz
 * is 2/3: conceptually, zeros are stuffed between samples (48 kHz), a low-pass removes what the 16 kHz output cannot hold,
 * and every third sample is kept. Done as a polyphase filter, only the kept samples are computed, from real inputs only.
 * The filter is causal, so the output lags the input by about 2 ms, and each push returns every sample it can: after N
 * input samples in all, floor(2N/3) output samples in all, whatever the pieces.
 */
import { lowPassPhases } from "./low-pass.ts";

export type InputRate = 16000 | 24000;

const cutoffHz = 7200;

export class Resampler {
  private readonly passthrough: boolean;
  private readonly phases: [Float64Array, Float64Array];
  /** The last input samples the filter still reaches, oldest first; zeros before the first sample. */
  private history: Float64Array;
  private inputCount = 0;
  private outputCount = 0;

  constructor(from: InputRate, to: 16000) {
    if ((from !== 16000 && from !== 24000) || to !== 16000) throw new RangeError(`no resampling from ${from} Hz to ${to} Hz: 16000 or 24000 to 16000 only`);
    this.passthrough = from === to;
    this.phases = lowPassPhases(48000, cutoffHz);
    this.history = new Float64Array(this.phases[0].length);
  }

  /** The 16 kHz samples the pushed ones complete (possibly none, for a push of one sample). */
  push(samples: Int16Array): Int16Array {
    if (this.passthrough) return samples;
    const reach = this.history.length;
    const window = new Float64Array(reach + samples.length);
    window.set(this.history);
    window.set(samples, reach);
    const windowStart = this.inputCount - reach;
    this.inputCount += samples.length;
    // Output m is the 48 kHz sample 3m + 2 of the zero-stuffed stream, which needs input up to floor((3m + 2) / 2).
    const total = Math.floor((2 * this.inputCount) / 3);
    const output = new Int16Array(total - this.outputCount);
    for (let i = 0; i < output.length; i++) output[i] = this.sampleAt(window, windowStart, this.outputCount + i);
    this.outputCount = total;
    this.history = window.slice(window.length - reach);
    return output;
  }

  private sampleAt(window: Float64Array, windowStart: number, m: number): number {
    const top = 3 * m + 2;
    const phase = this.phases[top % 2]!;
    // The stuffed stream's sample top - k is input (top - k) / 2 where that is whole: taps of one parity only.
    let newest = (top - (top % 2)) / 2 - windowStart;
    let sum = 0;
    for (let j = 0; j < phase.length; j++, newest--) sum += phase[j]! * window[newest]!;
    return Math.max(-32768, Math.min(32767, Math.round(sum)));
  }
}
