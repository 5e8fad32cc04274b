/**
 * The event loop's side of a live PocketSphinx recognizer: every call is a message to the recognizer's own decoder
 * thread (sphinx-decoder-thread.ts), so a session never waits on decoding, however much audio it pushes at once. The
 * thread says which samples it is done with, so `backlogMs` is the audio still waiting to be decoded.
 */
import { RecognitionError } from "../../transcription/engine.ts";
import { liveSampleRate, type TurnRecognizer, type TurnResult } from "../streaming-engine.ts";
import type { SphinxLibraryFiles } from "./sphinx-library.ts";
import type { FromDecoderThread, ToDecoderThread } from "./sphinx-thread-messages.ts";

const threadScript = new URL("./sphinx-decoder-thread.ts", import.meta.url);
/** Loading the model takes about 0.25 s; a thread that has not answered by then is stuck. */
const openTimeoutMs = 30_000;
/** A thread answers `close` within a slice of decoding; one that does not is terminated anyway. */
const closeTimeoutMs = 5_000;

type Waiting = { resolve(reply: FromDecoderThread): void; reject(error: Error): void };

export class SphinxRecognizer implements TurnRecognizer {
  private lastId = 0;
  private readonly waiting = new Map<number, Waiting>();
  /** Why calls fail from now on: set by close() or by the thread's failure. */
  private ended: Error | null = null;
  private released = false;
  /** Samples pushed to the thread, and those it said it is done with. */
  private pushedSamples = 0;
  private decodedSamples = 0;

  private constructor(
    private readonly thread: Worker,
    private readonly release: () => Promise<void>,
  ) {
    thread.onmessage = (event: MessageEvent<FromDecoderThread>) => this.receive(event.data);
    thread.onerror = (event) => this.fail(new RecognitionError(`Speech recognition (PocketSphinx) failed: ${event.message}`));
  }

  /** Starts a decoder thread with these decoder arguments; `release` is called once the recognizer is closed or fails. */
  static async start(args: string[], release: () => Promise<void>, libraries: SphinxLibraryFiles): Promise<SphinxRecognizer> {
    const thread = new Worker(threadScript.href);
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no answer in ${openTimeoutMs / 1000} s`)), openTimeoutMs);
        thread.onmessage = (event: MessageEvent<FromDecoderThread>) => {
          clearTimeout(timer);
          if (event.data.type === "ready") resolve();
          else reject(new Error(event.data.type === "failed" ? event.data.message : `unexpected ${event.data.type}`));
        };
        thread.onerror = (event) => (clearTimeout(timer), reject(new Error(event.message)));
        thread.postMessage({ type: "open", args, libraries } satisfies ToDecoderThread);
      });
    } catch (error) {
      thread.terminate();
      throw new RecognitionError(`Live speech recognition (PocketSphinx) is not available: ${(error as Error).message}`);
    }
    thread.unref();
    return new SphinxRecognizer(thread, release);
  }

  push(samples: Int16Array): void {
    if (this.ended || samples.length === 0) return;
    // A copy, handed over without another: the caller keeps its array (the session also records it).
    const copy = samples.slice();
    this.pushedSamples += copy.length;
    this.post({ type: "push", samples: copy }, [copy.buffer]);
  }

  partial(): Promise<string> {
    return this.request("partial", (reply) => (reply.type === "partial" ? reply.text : null));
  }

  finish(): Promise<TurnResult> {
    return this.request("finish", (reply) => (reply.type === "finished" ? reply.result : null));
  }

  clear(): void {
    if (!this.ended) this.post({ type: "clear" });
  }

  backlogMs(): number {
    return this.ended ? 0 : ((this.pushedSamples - this.decodedSamples) * 1000) / liveSampleRate;
  }

  close(): void {
    if (this.ended) return;
    this.end(new RecognitionError("The live recognizer was closed."));
    this.post({ type: "close" });
    // The decoder's memory is the library's, not the thread's: let the thread free it before terminating it.
    const timer = setTimeout(() => this.stop(), closeTimeoutMs);
    timer.unref();
    this.thread.onmessage = (event: MessageEvent<FromDecoderThread>) => {
      if (event.data.type !== "closed") return;
      clearTimeout(timer);
      this.stop();
    };
  }

  private request<T>(type: "partial" | "finish", read: (reply: FromDecoderThread) => T | null): Promise<T> {
    if (this.ended) return Promise.reject(this.ended);
    const id = ++this.lastId;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, {
        resolve: (reply) => {
          const result = read(reply);
          if (result === null) reject(new RecognitionError(`Speech recognition (PocketSphinx) answered ${reply.type} to ${type}`));
          else resolve(result);
        },
        reject,
      });
      // Held open while an answer is awaited, and only then: an idle recognizer keeps no process alive.
      this.thread.ref();
      this.post({ type, id });
    });
  }

  private receive(reply: FromDecoderThread): void {
    if (reply.type === "decoded") this.decodedSamples += reply.samples;
    if (reply.type !== "partial" && reply.type !== "finished") return;
    const waiting = this.waiting.get(reply.id);
    this.waiting.delete(reply.id);
    if (this.waiting.size === 0) this.thread.unref();
    waiting?.resolve(reply);
  }

  private post(message: ToDecoderThread, transfer: ArrayBuffer[] = []): void {
    this.thread.postMessage(message, transfer);
  }

  /** The thread failed: every call fails, the thread goes. */
  private fail(error: Error): void {
    if (this.ended) return;
    this.end(error);
    this.stop();
  }

  private end(error: Error): void {
    this.ended = error;
    for (const waiting of this.waiting.values()) waiting.reject(error);
    this.waiting.clear();
    this.thread.unref();
  }

  private stop(): void {
    this.thread.terminate();
    if (this.released) return;
    this.released = true;
    void this.release().catch(() => {});
  }
}
