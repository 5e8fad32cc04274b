/**
 * A batch SpeechEngine double for the windowed recognizer's tests. Audio is made of 100 ms blocks whose every sample
 * holds the block's number in the turn (`blocks`); the engine answers one word `b<number>` per block it was given,
 * timed from the start of the WAV it read, so a test sees which part of the turn each recognition covered.
 */
import { existsSync } from "node:fs";
import type { Recognition, RecognizeOptions, SpeechEngine } from "../../src/transcription/engine.ts";
import { wavHeaderBytes } from "../../src/transcription/wav.ts";

export const blockSamples = 1600; // 100 ms at 16 kHz

/** `count` blocks of audio numbered from `first`. */
export function blocks(first: number, count: number): Int16Array {
  const samples = new Int16Array(count * blockSamples);
  for (let i = 0; i < count; i++) samples.fill(first + i, i * blockSamples, (i + 1) * blockSamples);
  return samples;
}

export type FakeCall = {
  path: string;
  options: RecognizeOptions;
  samples: Int16Array;
  /** Whether the WAV was on disk when the engine was called. */
  fileThere: boolean;
  answer(): void;
  fail(error: Error): void;
};

export class FakeBatchEngine implements SpeechEngine {
  readonly name = "fake";
  readonly calls: FakeCall[] = [];
  running = 0;
  mostAtOnce = 0;
  /** false: each call waits for the test's answer() or fail(). */
  answerAtOnce = true;
  /** Whether an abort rejects at once (whisper's engine and fetch do). */
  honoursAbort = true;

  async recognize(path: string, options: RecognizeOptions): Promise<Recognition> {
    const bytes = await Bun.file(path).arrayBuffer();
    const samples = new Int16Array(bytes.slice(wavHeaderBytes));
    const { promise, resolve, reject } = Promise.withResolvers<Recognition>();
    this.running++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    const call: FakeCall = { path, options, samples, fileThere: existsSync(path), answer: () => resolve(wordsOf(samples)), fail: reject };
    this.calls.push(call);
    if (this.honoursAbort) options.signal?.addEventListener("abort", () => reject(options.signal?.reason), { once: true });
    if (this.answerAtOnce) call.answer();
    try {
      return await promise;
    } finally {
      this.running--;
    }
  }
}

/** One word per block, timed in the WAV. */
function wordsOf(samples: Int16Array): Recognition {
  const words = [];
  for (let at = 0; at < samples.length; at += blockSamples) {
    const start = (at / blockSamples) * 100;
    words.push({ text: `b${samples[at]}`, start, end: start + 100, confidence: 0.5 });
  }
  return { words, punctuated: true };
}

/** The words `b<first>` … `b<first + count - 1>`, as text. */
export const blockText = (first: number, count: number) => Array.from({ length: count }, (_, i) => `b${first + i}`).join(" ");
