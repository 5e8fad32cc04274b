// The live session's per-chunk audio work, pure CPU: `bun bench/live-audio.bench.ts`.
// - decoding: a 1 MB base64 `input_audio_buffer.append` (decodePcm16Base64), and a 10 MB one refused by its length;
// - resampling 24 -> 16 kHz (Resampler) and voice-activity detection (VoiceActivity), as a real-time factor: seconds of
//   audio handled per second of CPU, fed in 20 ms chunks as a browser sends them (higher is better; one session needs 1).
// Each time is the median of several runs after a warm-up.
import { decodePcm16Base64 } from "../src/live/audio/pcm.ts";
import { Resampler } from "../src/live/audio/resample.ts";
import { VoiceActivity } from "../src/live/audio/voice-activity.ts";
import { figure } from "./support/figures.ts";
import { sized } from "./support/quick.ts";

const runs = sized(9, 3);
const audioSeconds = sized(60, 10);

function medianMs(work: () => void): number {
  work();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    work();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!;
}

const noisy = (count: number) => Int16Array.from({ length: count }, (_, i) => Math.round(8000 * Math.sin(i / 7) + ((i * 7919) % 2001) - 1000));
const oneMegabyte = Buffer.from(noisy(512 * 1024).buffer).toString("base64");
const tenMegabytes = "A".repeat(Math.ceil((10 * 1024 * 1024) / 3) * 4);

figure(
  "decode 1 MB of base64 PCM",
  medianMs(() => decodePcm16Base64(oneMegabyte, 1 << 20)),
  "ms",
  { op: "<=", value: 10 },
);
figure(
  "refuse a 10 MB append by its length",
  medianMs(() => decodePcm16Base64(tenMegabytes, 1 << 20)),
  "ms",
  { op: "<=", value: 0.1 },
);

function realTimeFactor(rate: number, feed: (chunk: Int16Array) => void): number {
  const audio = noisy(rate * audioSeconds);
  const chunk = rate / 50;
  const ms = medianMs(() => {
    for (let offset = 0; offset < audio.length; offset += chunk) feed(audio.subarray(offset, offset + chunk));
  });
  return (audioSeconds * 1000) / ms;
}

const resampler = new Resampler(24000, 16000);
figure(
  "resample 24 -> 16 kHz, real-time factor",
  realTimeFactor(24000, (chunk) => resampler.push(chunk)),
  "x",
  { op: ">=", value: 100 },
);
const voiceActivity = new VoiceActivity({ threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 });
figure(
  "voice activity at 16 kHz, real-time factor",
  realTimeFactor(16000, (chunk) => voiceActivity.push(chunk)),
  "x",
  { op: ">=", value: 100 },
);
