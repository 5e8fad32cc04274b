import { describe, expect, test } from "bun:test";
import { VoiceActivity, type VoiceEvent } from "../../../src/live/audio/voice-activity.ts";

/** server_vad on synthetic audio: tone bursts as speech, silence or low noise between, clicks that must start nothing. */

const rate = 16000;
const defaults = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 };

/** A deterministic noise generator, so a failure replays. */
function noise(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31 - 0.5;
  };
}

type Part = { ms: number; tone?: number; amplitude?: number };

/** Parts one after the other: a 300 Hz tone of `amplitude`, or nothing but the background (`noiseAmplitude` peak). */
function audio(parts: Part[], noiseAmplitude = 0): Int16Array {
  const random = noise(7);
  const samples: number[] = [];
  for (const part of parts) {
    for (let i = 0; i < (part.ms * rate) / 1000; i++) {
      const voiced = part.amplitude ? part.amplitude * Math.sin((2 * Math.PI * (part.tone ?? 300) * i) / rate) : 0;
      samples.push(Math.round(voiced + 2 * noiseAmplitude * random()));
    }
  }
  return Int16Array.from(samples);
}

function detect(samples: Int16Array, pieceSize = 480, options = defaults): VoiceEvent[] {
  const vad = new VoiceActivity(options);
  const events: VoiceEvent[] = [];
  for (let offset = 0; offset < samples.length; offset += pieceSize) events.push(...vad.push(samples.subarray(offset, offset + pieceSize)));
  return events;
}

const near = (actual: number, expected: number, within: number) => expect(Math.abs(actual - expected)).toBeLessThanOrEqual(within);

describe("VoiceActivity", () => {
  test("given tone bursts separated by silence, then each starts (moved back by the padding) and stops at its end", () => {
    const events = detect(audio([{ ms: 1000 }, { ms: 800, amplitude: 8000 }, { ms: 1000 }, { ms: 600, amplitude: 8000 }, { ms: 1000 }]));
    expect(events.map((e) => e.type)).toEqual(["speech_started", "speech_stopped", "speech_started", "speech_stopped"]);
    near(events[0]!.atMs, 1000 - 300, 20);
    near(events[1]!.atMs, 1800, 20);
    near(events[2]!.atMs, 2800 - 300, 20);
    near(events[3]!.atMs, 3400, 20);
  });

  test("given low background noise, then bursts 20 dB above it are found and the noise alone starts nothing", () => {
    const events = detect(audio([{ ms: 2000 }, { ms: 700, amplitude: 3000 }, { ms: 1500 }, { ms: 700, amplitude: 3000 }, { ms: 2000 }], 300));
    expect(events.map((e) => e.type)).toEqual(["speech_started", "speech_stopped", "speech_started", "speech_stopped"]);
    near(events[0]!.atMs, 1700, 30);
    near(events[1]!.atMs, 2700, 30);
    expect(detect(audio([{ ms: 6000 }], 300))).toEqual([]);
  });

  test("given a click or a short knock (under 100 ms), then nothing starts", () => {
    for (const ms of [1, 10, 30, 60, 99]) {
      expect(detect(audio([{ ms: 500 }, { ms, amplitude: 30000, tone: 2000 }, { ms: 1000 }]))).toEqual([]);
      expect(detect(audio([{ ms: 500 }, { ms, amplitude: 30000, tone: 2000 }, { ms: 1000 }], 200))).toEqual([]);
    }
    expect(detect(audio([{ ms: 500 }, { ms: 20, amplitude: 30000 }, { ms: 300 }, { ms: 20, amplitude: 30000 }, { ms: 1000 }]))).toEqual([]);
  });

  test("given pauses shorter than the silence duration, then the speech goes on through them", () => {
    const speech = audio([{ ms: 500 }, { ms: 400, amplitude: 8000 }, { ms: 300 }, { ms: 400, amplitude: 8000 }, { ms: 1000 }]);
    const events = detect(speech);
    expect(events.map((e) => e.type)).toEqual(["speech_started", "speech_stopped"]);
    near(events[1]!.atMs, 1600, 20);
    expect(detect(speech, 480, { ...defaults, silenceDurationMs: 200 }).map((e) => e.type)).toEqual([
      "speech_started",
      "speech_stopped",
      "speech_started",
      "speech_stopped",
    ]);
  });

  test("given speech at the very start, then the start is not moved before the first sample", () => {
    const events = detect(audio([{ ms: 100 }, { ms: 600, amplitude: 8000 }, { ms: 1000 }]));
    expect(events[0]).toEqual({ type: "speech_started", atMs: 0 });
  });

  test("given a higher threshold, then quieter speech no longer counts", () => {
    const quiet = audio([{ ms: 1500 }, { ms: 800, amplitude: 1200 }, { ms: 1000 }], 300);
    expect(detect(quiet, 480, { ...defaults, threshold: 0.2 }).length).toBe(2);
    expect(detect(quiet, 480, { ...defaults, threshold: 0.9 })).toEqual([]);
  });

  test("given the same audio in pieces of any size, then the events are the same", () => {
    const speech = audio([{ ms: 700 }, { ms: 800, amplitude: 8000 }, { ms: 900 }], 100);
    const expected = detect(speech, speech.length);
    for (const size of [1, 7, 160, 333, 4096]) expect(detect(speech, size)).toEqual(expected);
  });

  test("given settings outside their range, when constructed, then it throws", () => {
    expect(() => new VoiceActivity({ ...defaults, threshold: 1.5 })).toThrow(RangeError);
    expect(() => new VoiceActivity({ ...defaults, threshold: Number.NaN })).toThrow(RangeError);
    expect(() => new VoiceActivity({ ...defaults, silenceDurationMs: 0 })).toThrow(RangeError);
  });
});
