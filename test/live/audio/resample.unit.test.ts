import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { Resampler } from "../../../src/live/audio/resample.ts";

/** 24 kHz -> 16 kHz for OpenAI's Realtime clients: the band speech needs kept, what 16 kHz cannot hold removed. */

const tone = (hz: number, rate: number, seconds: number, amplitude: number) =>
  Int16Array.from({ length: Math.round(rate * seconds) }, (_, i) => Math.round(amplitude * Math.sin((2 * Math.PI * hz * i) / rate)));
const rms = (samples: Int16Array) => Math.sqrt(samples.reduce((sum, s) => sum + s * s, 0) / samples.length);
/** Skips the filter's start (zeros before the first sample) so only the steady state is measured. */
const steady = (samples: Int16Array) => samples.subarray(400);

/** The frequency of a tone from its rising zero crossings, interpolated. */
function frequencyOf(samples: Int16Array, rate: number): number {
  const crossings: number[] = [];
  for (let i = 1; i < samples.length; i++) {
    const [a, b] = [samples[i - 1]!, samples[i]!];
    if (a < 0 && b >= 0) crossings.push(i - 1 + -a / (b - a));
  }
  return ((crossings.length - 1) * rate) / (crossings.at(-1)! - crossings[0]!);
}

describe("Resampler 24 kHz -> 16 kHz", () => {
  test("given a 1 kHz tone, when resampled, then its frequency and amplitude are kept", () => {
    const output = steady(new Resampler(24000, 16000).push(tone(1000, 24000, 1, 10000)));
    expect(frequencyOf(output, 16000)).toBeCloseTo(1000, 0);
    expect(rms(output) / (10000 / Math.SQRT2)).toBeCloseTo(1, 2);
  });

  test("given speech-band tones up to 6 kHz, when resampled, then each keeps its level within 0.5 dB", () => {
    for (const hz of [200, 3000, 6000]) {
      const output = steady(new Resampler(24000, 16000).push(tone(hz, 24000, 0.5, 10000)));
      expect(Math.abs(20 * Math.log10(rms(output) / (10000 / Math.SQRT2)))).toBeLessThan(0.5);
    }
  });

  test("given a 10 kHz tone (above the 8 kHz the output can hold), when resampled, then it is attenuated by more than 30 dB", () => {
    const input = tone(10000, 24000, 1, 10000);
    const output = steady(new Resampler(24000, 16000).push(input));
    expect(20 * Math.log10(rms(output) / rms(input))).toBeLessThan(-30);
  });

  test("given any pieces, when pushed one after the other, then the output is what one push of the whole gives", () => {
    const whole = tone(440, 24000, 0.1, 20000).map((s, i) => s + ((i * 7919) % 2001) - 1000);
    const atOnce = new Resampler(24000, 16000).push(whole);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 1, maxLength: 60 }), (sizes) => {
        const resampler = new Resampler(24000, 16000);
        const pieces: number[] = [];
        let offset = 0;
        for (let i = 0; offset < whole.length; i++) {
          const size = Math.max(1, sizes[i % sizes.length]!);
          pieces.push(...resampler.push(whole.subarray(offset, offset + size)));
          offset += size;
        }
        expect(pieces).toEqual(Array.from(atOnce));
      }),
      { numRuns: 50 },
    );
  });

  test("given one sample at a time, then the output matches one push and its length is floor(2/3) of the input's after every push", () => {
    const whole = tone(1000, 24000, 0.05, 30000);
    const resampler = new Resampler(24000, 16000);
    let produced = 0;
    const pieces: number[] = [];
    for (let i = 0; i < whole.length; i++) {
      const output = resampler.push(whole.subarray(i, i + 1));
      produced += output.length;
      pieces.push(...output);
      expect(produced).toBe(Math.floor((2 * (i + 1)) / 3));
    }
    expect(pieces).toEqual(Array.from(new Resampler(24000, 16000).push(whole)));
  });

  test("given full-scale input, when resampled, then samples are clipped to 16 bits instead of wrapping", () => {
    const square = Int16Array.from({ length: 2400 }, (_, i) => (Math.floor(i / 12) % 2 === 0 ? 32767 : -32768));
    const output = new Resampler(24000, 16000).push(square);
    expect(Math.max(...output)).toBeLessThanOrEqual(32767);
    expect(Math.min(...output)).toBeGreaterThanOrEqual(-32768);
    expect(Math.max(...output)).toBeGreaterThan(30000);
  });
});

describe("Resampler 16 kHz -> 16 kHz", () => {
  test("given 16 kHz audio, when pushed, then it passes through unchanged", () => {
    const input = tone(1000, 16000, 0.01, 1000);
    expect(new Resampler(16000, 16000).push(input)).toEqual(input);
  });

  test("given another rate (a caller that cast), when constructed, then it throws", () => {
    const cd: number = 44100;
    expect(() => new Resampler(cd as 24000, 16000)).toThrow(RangeError);
  });
});
