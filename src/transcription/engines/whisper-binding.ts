/**
 * The part of `@fugood/whisper.node` the whisper engine uses, as its lib/binding.ts and lib/index.ts declare it
 * (the package ships no .d.ts), and the loading of a model with whisper.cpp's own reason when it fails.
 */
import type { WhisperSegment } from "./whisper-words.ts";

export type TranscribeOptions = {
  /** A language code, or "auto" to detect it. */
  language?: string;
  maxThreads?: number;
  /** In characters; 1 with tokenTimestamps gives one segment per token, each with its own times. */
  maxLen?: number;
  tokenTimestamps?: boolean;
  /** whisper.cpp's initial prompt: text the speech is expected to resemble (names, terms). */
  prompt?: string;
  /** 0..100 as the audio is decoded. */
  onProgress?: (progress: number) => void;
};

export type TranscribeResult = { language?: string; result: string; segments: WhisperSegment[]; isAborted: boolean };

export type WhisperContext = {
  /** 16-bit signed mono PCM at 16 kHz. `stop()` marks the job cancelled: the promise then rejects once whisper.cpp returns. */
  transcribeData(audioData: ArrayBuffer, options?: TranscribeOptions): { stop: () => Promise<void>; promise: Promise<TranscribeResult> };
  release(): Promise<void>;
};

type WhisperModule = {
  initWhisper(options: { filePath: string; useGpu?: boolean }, variant?: "default" | "vulkan" | "cuda"): Promise<WhisperContext>;
  toggleNativeLog(enable: boolean): Promise<void>;
  addNativeLogListener(listener: (level: string, text: string) => void): { remove: () => void };
};

let loading = 0;

/**
 * Loads a model. whisper.cpp says why a file is refused only in its log (the binding's error is "Failed to initialize
 * whisper context"), so its log is routed here while models load and its error lines become the error's message.
 * The log goes back to whisper.cpp's default afterwards: the binding's log callback would keep the process alive.
 */
export async function loadWhisperContext(path: string, accelerator: "none" | "cuda" | "vulkan"): Promise<WhisperContext> {
  const whisper: WhisperModule = await import("@fugood/whisper.node");
  const errors: string[] = [];
  const listener = whisper.addNativeLogListener((level, text) => {
    if (level === "error") errors.push(text.trim());
  });
  if (loading++ === 0) await whisper.toggleNativeLog(true);
  try {
    return await whisper.initWhisper({ filePath: path, useGpu: accelerator !== "none" }, accelerator === "none" ? "default" : accelerator);
  } catch (error) {
    await new Promise((resolve) => setImmediate(resolve)); // the log lines come through the event loop
    throw new Error(errors.length > 0 ? errors.join("; ") : (error as Error).message);
  } finally {
    listener.remove();
    if (--loading === 0) await whisper.toggleNativeLog(false);
  }
}
