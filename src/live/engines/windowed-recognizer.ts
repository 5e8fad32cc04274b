import { rm } from "node:fs/promises";
import { join } from "node:path";
import { RecognitionError, type Recognition, type RecognizedWord, type SpeechEngine } from "../../transcription/engine.ts";
import { sampleRate } from "../../transcription/wav.ts";
import type { StreamingOptions, TurnRecognizer, TurnResult } from "../streaming-engine.ts";
import { TurnSamples, type TurnStretch } from "./windowed-turn-samples.ts";
import { recognizeSamples, samplesToMs } from "./windowed-wav.ts";

export type WindowOptions = {
  /** Partials recognise this much of the turn's end, and their text is of those seconds only (default 8 s). */
  windowMs: number;
  /**
   * The most audio of one turn kept. Past it the oldest is dropped: partials go on, and the final covers the turn's
   * last `maxTurnMs` only (its word times still count from the turn's first sample). A session's own maximum length
   * is the session's to enforce; this only bounds memory (10 minutes: 19 MB).
   */
  maxTurnMs: number;
};

export const defaultWindowOptions: WindowOptions = { windowMs: 8_000, maxTurnMs: 600_000 };

/** Which of the current turn's samples a recognition covered. */
type Covered = { startSample: number; endSample: number };

/** The partial recognition running now: whoever asks while it runs shares its answer. */
type RunningPartial = Covered & { answer: Promise<Recognition>; text: Promise<string>; controller: AbortController; fallback: string };

const closedError = () => new RecognitionError("The live recognizer is closed");
const textOf = (words: readonly RecognizedWord[]) => words.map((word) => word.text).join(" ");

/**
 * Live recognition with a batch engine (whisper, an OpenAI-compatible endpoint), which only recognises whole files:
 * a partial recognises the last `windowMs` of the turn, the final recognises the whole turn once, with the session's
 * language and vocabulary. One recognition runs at a time: a partial asked while one runs gets that one's answer (or,
 * while a final runs, the last partial's text), so nothing queues up behind a slow engine. Finishing or clearing a
 * turn aborts a partial that is no longer wanted, unless it covers exactly the turn being finished: then its answer is
 * the final. Each recognition's WAV is written in `dir` and removed once the engine has answered; `dir` itself is
 * removed on close.
 */
export class WindowedRecognizer implements TurnRecognizer {
  private readonly samples: TurnSamples;
  /** This turn's latest partial answer, and what it covered. */
  private latest: (Covered & { recognition: Recognition; text: string }) | null = null;
  private partialRun: RunningPartial | null = null;
  /** Recognitions started and not settled (at most one runs; a final may wait behind a partial being aborted). */
  private busy = 0;
  /** Settles once the latest recognition started has settled: the next one starts after it. */
  private idle: Promise<unknown> = Promise.resolve();
  private readonly finalControllers = new Set<AbortController>();
  private files = 0;
  private readonly shutdown = Promise.withResolvers<never>();
  private closing: Promise<void> | null = null;

  constructor(
    private readonly engine: SpeechEngine,
    private readonly dir: string,
    private readonly streaming: StreamingOptions,
    private readonly options: WindowOptions = defaultWindowOptions,
  ) {
    this.samples = new TurnSamples(Math.max(1, Math.round((options.maxTurnMs * sampleRate) / 1000)));
    this.shutdown.promise.catch(() => {}); // only ever raced against
  }

  /** Settles once the recognizer is closed and its folder removed (never before close). */
  get closed(): Promise<void> {
    return this.closing ?? new Promise<void>(() => {});
  }

  push(samples: Int16Array): void {
    if (this.closing) return;
    this.samples.push(samples);
  }

  partial(): Promise<string> {
    if (this.closing) return Promise.reject(closedError());
    if (this.partialRun) return this.guarded(this.partialRun.text);
    const lastText = this.latest?.text ?? "";
    const nothingNew = this.samples.length === 0 || this.latest?.endSample === this.samples.length;
    if (nothingNew || this.busy > 0) return Promise.resolve(lastText);
    return this.guarded(this.startPartial(lastText).text);
  }

  finish(): Promise<TurnResult> {
    if (this.closing) return Promise.reject(closedError());
    const stretch = this.samples.take();
    const end = stretch.startSample + stretch.samples.length;
    const covers = (c: Covered | null) => c !== null && c.startSample === stretch.startSample && c.endSample === end;
    let answer: Promise<Recognition> | null = null;
    if (this.latest && covers(this.latest)) answer = Promise.resolve(this.latest.recognition);
    else if (this.partialRun && covers(this.partialRun)) answer = this.partialRun.answer;
    this.nextTurn(this.latest?.text ?? "", answer === null);
    if (stretch.samples.length === 0) return Promise.resolve({ text: "", words: [], punctuated: false });
    answer ??= this.startFinal(stretch);
    return this.guarded(answer.then((recognition) => resultOf(recognition, stretch.startSample)));
  }

  clear(): void {
    if (this.closing) return;
    this.samples.clear();
    this.nextTurn("", true);
  }

  close(): void {
    if (this.closing) return;
    this.shutdown.reject(closedError());
    this.partialRun?.controller.abort();
    this.partialRun = null;
    for (const controller of this.finalControllers) controller.abort();
    this.samples.clear();
    // The folder goes once the engine is done with the file it reads (an aborted whisper run answers at once).
    this.closing = this.idle
      .then(() => rm(this.dir, { recursive: true, force: true }))
      .then(
        () => {},
        () => {},
      );
  }

  /** A new turn starts: the running partial is aborted (its askers get `fallback`) unless its answer is kept. */
  private nextTurn(fallback: string, abortPartial: boolean): void {
    this.latest = null;
    const running = this.partialRun;
    this.partialRun = null;
    if (running && abortPartial) {
      running.fallback = fallback;
      running.controller.abort();
    }
  }

  private startPartial(lastText: string): RunningPartial {
    const window = this.samples.tail((this.options.windowMs * sampleRate) / 1000);
    const controller = new AbortController();
    const covered: Covered = { startSample: window.startSample, endSample: this.samples.length };
    const answer = this.recognize(window, "window", controller.signal);
    const run: RunningPartial = { ...covered, answer, controller, fallback: lastText, text: Promise.resolve("") };
    run.text = answer.then(
      (recognition) => {
        const text = textOf(recognition.words);
        if (this.partialRun === run) {
          this.latest = { ...covered, recognition, text };
          this.partialRun = null;
        }
        return text;
      },
      (error: unknown) => {
        if (this.partialRun === run) this.partialRun = null;
        if (controller.signal.aborted && !this.closing) return run.fallback;
        throw error;
      },
    );
    this.partialRun = run;
    return run;
  }

  private startFinal(stretch: TurnStretch): Promise<Recognition> {
    const controller = new AbortController();
    this.finalControllers.add(controller);
    return this.recognize(stretch, "turn", controller.signal).finally(() => this.finalControllers.delete(controller));
  }

  /** Recognises once the recognition before has settled, so that this recognizer never runs two at once. */
  private recognize(stretch: TurnStretch, kind: string, signal: AbortSignal): Promise<Recognition> {
    const path = join(this.dir, `${kind}-${++this.files}.wav`);
    const { language, vocabulary } = this.streaming;
    this.busy++;
    const answer = this.idle
      .then(() => {
        if (this.closing) throw closedError();
        signal.throwIfAborted();
        return recognizeSamples(this.engine, stretch.samples, path, { signal, language, vocabulary });
      })
      .finally(() => this.busy--);
    this.idle = answer.catch(() => {});
    return answer;
  }

  /** Rejects once the recognizer is closed, whatever the engine does with the abort. */
  private guarded<T>(work: Promise<T>): Promise<T> {
    return Promise.race([work, this.shutdown.promise]);
  }
}

/** The turn's result: the engine's words, moved from the recognised stretch's start to the turn's. */
function resultOf(recognition: Recognition, startSample: number): TurnResult {
  const offset = samplesToMs(startSample);
  const words = recognition.words.map((word) => ({ ...word, start: Math.round(word.start + offset), end: Math.round(word.end + offset) }));
  return { text: textOf(words), words, punctuated: recognition.punctuated };
}
