import { RecognitionError, type Recognition, type RecognizeOptions, type SpeechEngine } from "../engine.ts";
import type { WhisperAccelerator } from "../config.ts";
import { wavHeaderBytes } from "../wav.ts";
import { loadWhisperContext, type TranscribeOptions, type TranscribeResult, type WhisperContext } from "./whisper-binding.ts";
import { whisperModelLanguages } from "./whisper-model-file.ts";
import { wordsOfSegments } from "./whisper-words.ts";

export type WhisperOptions = { model: string; accelerator: WhisperAccelerator; language: string | null; threads: number };

/** How long whisper.cpp may take over a chunk before it is taken for lost: far longer than any model on any CPU. */
const patienceMs = (durationMs: number) => 120_000 + 30 * durationMs;

/** `languages`: those the model knows, null when its header could not say (whisper.cpp then decides). */
type Loaded = { context: WhisperContext; languages: readonly string[] | null };

/**
 * whisper.cpp through `@fugood/whisper.node` (prebuilt for Linux x64: CPU, CUDA and Vulkan variants), with a ggml
 * model file (WHISPER_MODEL). One context is loaded on first use and runs one chunk at a time with WHISPER_THREADS
 * threads (a whisper.cpp context is not reentrant). Words come with their own times (token timestamps, one segment
 * per token: whisper-words.ts); the binding gives no token probabilities, so no confidence.
 *
 * The language is the task's, else WHISPER_LANGUAGE, else detected ("auto"); one the model does not know fails the
 * chunk (whisper.cpp itself would decode with a wrong language token). The task's vocabulary is whisper's prompt.
 *
 * Cancelling: an aborted recognition rejects at once, and whisper.cpp finishes the chunk meanwhile (the binding
 * passes it no abort callback); the next recognition waits for that. The binding's stop() is not used: in
 * @fugood/whisper.node 1.1.3 a job that fails or is stopped while it runs never settles its promise (the worker's
 * OnError calls back with one argument, and only a call with two settles it). For the same reason a whisper.cpp
 * failure would never answer: a chunk that has no answer in `patienceMs` fails, and the engine goes on.
 */
export class WhisperEngine implements SpeechEngine {
  readonly name = "whisper";
  private loaded: Promise<Loaded> | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  /** Settles when whisper.cpp is done with the latest chunk, aborted or not. */
  private native: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: WhisperOptions) {}

  private load(): Promise<Loaded> {
    this.loaded ??= (async () => {
      const { model, accelerator } = this.options;
      const languages = whisperModelLanguages(model);
      const context = await loadWhisperContext(model, accelerator);
      return { context, languages };
    })().catch((error: unknown) => {
      this.loaded = null;
      throw new RecognitionError(`The whisper model ${this.options.model} could not be loaded: ${(error as Error).message}`);
    });
    return this.loaded;
  }

  recognize(wavPath: string, options: RecognizeOptions): Promise<Recognition> {
    const run = this.queue.then(() => this.run(wavPath, options));
    this.queue = run.then(
      () => this.native,
      () => this.native,
    );
    return run;
  }

  /** The language to ask whisper.cpp for: the task's, the configured one, or "auto"; English for an English-only model. */
  private languageFor(asked: string | null | undefined, known: readonly string[] | null): string {
    const language = (asked ?? this.options.language)?.trim().toLowerCase() || "auto";
    if (language === "auto") return known?.length === 1 ? known[0]! : "auto";
    if (!known || known.includes(language)) return language;
    if (known.length === 1) throw new RecognitionError(`The whisper model ${this.options.model} knows English only, not "${language}"`);
    throw new RecognitionError(`whisper does not know the language "${language}" (a two-letter ISO 639-1 code such as en, de or fr, or auto)`);
  }

  private async run(wavPath: string, { signal, durationMs, language, vocabulary }: RecognizeOptions): Promise<Recognition> {
    signal?.throwIfAborted();
    const { context, languages } = await this.load();
    const options: TranscribeOptions = { language: this.languageFor(language, languages), maxThreads: this.options.threads, tokenTimestamps: true, maxLen: 1 };
    if (vocabulary && vocabulary.length > 0) options.prompt = vocabulary.join(", ");
    const pcm = await Bun.file(wavPath).slice(wavHeaderBytes).arrayBuffer();
    signal?.throwIfAborted();
    const { promise: aborted, reject: abortWith } = Promise.withResolvers<never>();
    const abort = () => abortWith(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    try {
      const result = await Promise.race([this.transcribe(context, pcm, options, durationMs), aborted]);
      return { words: wordsOfSegments(result.segments, result.result, durationMs), punctuated: true };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      throw new RecognitionError(`Speech recognition (whisper) failed: ${(error as Error).message}`);
    } finally {
      signal?.removeEventListener("abort", abort);
    }
  }

  /** whisper.cpp's answer, or an error once it is overdue; `native` follows the work, which an abort does not stop. */
  private transcribe(context: WhisperContext, pcm: ArrayBuffer, options: TranscribeOptions, durationMs: number): Promise<TranscribeResult> {
    const job = context.transcribeData(pcm, options);
    const { promise: lost, reject: giveUp } = Promise.withResolvers<never>();
    const patience = setTimeout(() => giveUp(new Error(`whisper.cpp gave no answer in ${patienceMs(durationMs) / 1000} s`)), patienceMs(durationMs));
    patience.unref();
    const answer = Promise.race([job.promise, lost]);
    this.native = answer.then(
      () => clearTimeout(patience),
      () => clearTimeout(patience),
    );
    return answer;
  }

  async close(): Promise<void> {
    const loaded = await this.loaded?.catch(() => null);
    await loaded?.context.release();
  }
}
