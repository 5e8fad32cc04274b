/**
 * The recognizer side of a session: the turn being recognized, partial text on a cadence, and each turn's final words
 * in order. The recognizer may still be opening when audio arrives (a decoder thread starts, a model loads): what is
 * asked of it meanwhile waits in order. At most one `partial()` is in flight, and a partial that returns after its turn
 * ended is dropped.
 */
import type { RecognizedWord } from "../transcription/engine.ts";
import { liveSampleRate, type TurnRecognizer, type TurnResult } from "./streaming-engine.ts";
import { FirmingText } from "./session-deltas.ts";

/** A turn being recognized: its item, where it starts in the session's audio (ms). */
export type OpenTurn = { itemId: string; startMs: number };

/** A turn from its start until its final words came: partial text may still arrive for it once it was committed. */
type Recognizing = OpenTurn & { firming: FirmingText; done: boolean };

export type PartialText = { itemId: string; delta: string; latencyMs: number };

export class SessionRecognition {
  private recognizer: TurnRecognizer | null = null;
  private failed: unknown = null;
  /** What was asked while the recognizer opened, in order; `failed` runs instead when it cannot open. */
  private waiting: { run: (recognizer: TurnRecognizer) => void; failed?: () => void }[] = [];
  private turn: Recognizing | null = null;
  private partialInFlight = false;
  /** Audio pushed to the open turn since the last partial was asked: another is worth asking. */
  private pushedSincePartial = false;
  /** When the latest audio pushed to the turn arrived, and that of the partial before the last (whose words the last confirms). */
  private lastAudioAt = 0;
  private confirmedAudioAt = 0;
  private finishing: Promise<unknown> = Promise.resolve();
  private closed = false;
  /** Samples pushed while the recognizer opens, waiting for it. */
  private queuedSamples = 0;

  /** `failed`: told once when the recognizer cannot open (the engine is not there, its thread did not start). */
  constructor(opening: Promise<TurnRecognizer>, failed: (error: unknown) => void) {
    opening.then(
      (recognizer) => {
        if (this.closed) return recognizer.close();
        this.recognizer = recognizer;
        this.queuedSamples = 0;
        for (const { run } of this.waiting.splice(0)) run(recognizer);
      },
      (error: unknown) => {
        this.failed = error;
        this.queuedSamples = 0;
        for (const waiting of this.waiting.splice(0)) waiting.failed?.();
        failed(error);
      },
    );
  }

  /** Why the recognizer could not open, once it could not. */
  get failure(): unknown {
    return this.failed;
  }

  get openTurn(): OpenTurn | null {
    return this.turn === null ? null : { itemId: this.turn.itemId, startMs: this.turn.startMs };
  }

  /** Audio pushed and not yet decoded, ms: what waits for the recognizer to open, and what its own backlog says. */
  get backlogMs(): number {
    return (this.queuedSamples * 1000) / liveSampleRate + (this.recognizer?.backlogMs?.() ?? 0);
  }

  private withRecognizer(run: (recognizer: TurnRecognizer) => void, failed?: () => void): void {
    if (this.failed !== null || this.closed) failed?.();
    else if (this.recognizer !== null) run(this.recognizer);
    else this.waiting.push({ run, failed });
  }

  start(turn: OpenTurn): void {
    this.turn = { ...turn, firming: new FirmingText(), done: false };
    this.pushedSincePartial = false;
  }

  push(samples: Int16Array, arrivedAt: number): void {
    if (this.turn === null || samples.length === 0) return;
    this.lastAudioAt = arrivedAt;
    this.pushedSincePartial = true;
    if (this.recognizer === null && this.failed === null && !this.closed) this.queuedSamples += samples.length;
    this.withRecognizer((recognizer) => recognizer.push(samples));
  }

  /**
   * Asks for the open turn's hypothesis when none is in flight and audio came since the last, and hands `deliver` the
   * delta it firms up, if any. A hypothesis asked before the turn was committed comes before its final words (the
   * recognizer answers in order) and still counts, since a decoder behind a fast client answers late; it is delivered
   * in the same step as its answer, so never after the turn's final words, which take longer to be handed on.
   */
  async partial(now: () => number, deliver: (partial: PartialText) => void): Promise<void> {
    const turn = this.turn;
    if (turn === null || this.partialInFlight || !this.pushedSincePartial || this.recognizer === null) return;
    this.partialInFlight = true;
    this.pushedSincePartial = false;
    const askedAudioAt = this.lastAudioAt;
    try {
      const hypothesis = await this.recognizer.partial();
      if (turn.done) return;
      const delta = turn.firming.next(hypothesis);
      const confirmedAt = this.confirmedAudioAt;
      this.confirmedAudioAt = askedAudioAt;
      if (delta !== "") deliver({ itemId: turn.itemId, delta, latencyMs: now() - confirmedAt });
    } catch {
      // A recognizer that failed or closed: the turn's final words say what there is.
    } finally {
      this.partialInFlight = false;
    }
  }

  /**
   * Ends the open turn; resolves with its final words once every earlier turn's have come (so `completed` events go out
   * in order), or with an empty result when the recognizer failed or closed.
   */
  finish(): Promise<TurnResult> {
    const turn = this.turn;
    this.turn = null;
    const result = new Promise<TurnResult>((resolve) => {
      const empty: TurnResult = { text: "", words: [], punctuated: false };
      this.withRecognizer(
        (recognizer) => recognizer.finish().then(resolve, () => resolve(empty)),
        () => resolve(empty),
      );
    });
    const ordered = this.finishing
      .then(() => result)
      .finally(() => {
        if (turn !== null) turn.done = true;
      });
    this.finishing = ordered;
    return ordered;
  }

  /** Drops the open turn's audio and hypothesis. */
  clear(): void {
    if (this.turn !== null) this.turn.done = true;
    this.turn = null;
    this.withRecognizer((recognizer) => recognizer.clear());
  }

  /** Waits for every turn's final words, then frees the recognizer. */
  async close(): Promise<void> {
    await this.finishing;
    this.closed = true;
    this.recognizer?.close();
  }
}

/** Word times of a turn's result (ms from the turn's first sample) as ms from the session's first sample. */
export const sessionTimed = (words: readonly RecognizedWord[], turnStartMs: number): RecognizedWord[] =>
  words.map((word) => ({ ...word, start: word.start + turnStartMs, end: word.end + turnStartMs }));
