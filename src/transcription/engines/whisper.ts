import { RecognitionError, wordsOfPhrase, type Recognition, type RecognizeOptions, type SpeechEngine } from "../engine.ts";
import type { WhisperAccelerator } from "../config.ts";
import { wavHeaderBytes } from "../wav.ts";

export type WhisperOptions = { model: string; accelerator: WhisperAccelerator; language: string | null; threads: number };

type WhisperContext = {
  transcribeData(
    audio: ArrayBuffer,
    options: { language?: string; maxThreads?: number },
  ): { stop(): Promise<void>; promise: Promise<{ segments: { text: string; t0: number; t1: number }[]; isAborted: boolean }> };
  release(): Promise<void>;
};

/** The part of `@fugood/whisper.node` used here, as it declares it. */
type WhisperModule = {
  initWhisper(options: { filePath: string; useGpu: boolean }, variant?: "default" | "cuda" | "vulkan"): Promise<WhisperContext>;
};

/**
 * whisper.cpp through `@fugood/whisper.node` (prebuilt for Linux x64: CPU, CUDA and Vulkan variants),
 * with a ggml model file the operator supplies (WHISPER_MODEL). One context is loaded on first use and
 * runs one chunk at a time with WHISPER_THREADS threads (a whisper.cpp context is not reentrant).
 * Whisper times phrases, not words: words get a share of their phrase's time (wordsOfPhrase).
 *
 * UNTESTED HERE: no whisper model can be fetched on our build machines; see README.md, "A better engine".
 */
export class WhisperEngine implements SpeechEngine {
  readonly name = "whisper";
  private context: Promise<WhisperContext> | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: WhisperOptions) {}

  private load(): Promise<WhisperContext> {
    this.context ??= (async () => {
      const whisper: WhisperModule = await import("@fugood/whisper.node");
      const { model, accelerator } = this.options;
      return whisper.initWhisper({ filePath: model, useGpu: accelerator !== "none" }, accelerator === "none" ? "default" : accelerator);
    })().catch((error: unknown) => {
      this.context = null;
      throw new RecognitionError(`The whisper model ${this.options.model} could not be loaded: ${(error as Error).message}`);
    });
    return this.context;
  }

  recognize(wavPath: string, options: RecognizeOptions): Promise<Recognition> {
    const run = this.queue.then(() => this.run(wavPath, options));
    this.queue = run.catch(() => {});
    return run;
  }

  private async run(wavPath: string, { signal }: RecognizeOptions): Promise<Recognition> {
    signal?.throwIfAborted();
    const context = await this.load();
    const pcm = await Bun.file(wavPath).slice(wavHeaderBytes).arrayBuffer();
    const job = context.transcribeData(pcm, { language: this.options.language ?? "auto", maxThreads: this.options.threads });
    const abort = () => void job.stop();
    signal?.addEventListener("abort", abort, { once: true });
    try {
      const result = await job.promise;
      signal?.throwIfAborted();
      const words = result.segments.flatMap((s) => wordsOfPhrase(s.text.trim(), s.t0, s.t1, null));
      return { words, punctuated: true };
    } catch (error) {
      if (signal?.aborted || error instanceof RecognitionError) throw error;
      throw new RecognitionError(`Speech recognition (whisper) failed: ${(error as Error).message}`);
    } finally {
      signal?.removeEventListener("abort", abort);
    }
  }

  async close(): Promise<void> {
    const context = await this.context?.catch(() => null);
    await context?.release();
  }
}
