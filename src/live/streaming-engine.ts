/**
 * The live recognition port: an engine fed audio as it arrives, one turn at a time (a turn is what the session's
 * voice-activity detection, or the client's commit, cuts). Audio is 16 kHz mono 16-bit PCM, whatever the client sent:
 * the session resamples before pushing. Decoding never runs on the event loop's thread.
 */
import type { RecognizedWord } from "../transcription/engine.ts";
import type { EngineName } from "../tasks/recognition-choice.ts";

/** The sample rate every recognizer is fed. */
export const liveSampleRate = 16_000;

/** A finished turn: its text and words, word times in ms from the turn's first pushed sample. */
export type TurnResult = {
  text: string;
  words: RecognizedWord[];
  /** Whether the words carry punctuation and case (whisper) or not (PocketSphinx). */
  punctuated: boolean;
};

export interface TurnRecognizer {
  /** Adds samples to the current turn; the first push after open, finish or clear starts a new turn. Returns at once. */
  push(samples: Int16Array): void;
  /** The best hypothesis of the current turn so far, decoded from every sample pushed before the call ("" when none). */
  partial(): Promise<string>;
  /** Ends the current turn and resolves with its final words; the recognizer is then ready for the next turn. */
  finish(): Promise<TurnResult>;
  /** Drops the current turn's audio and hypothesis (input_audio_buffer.clear). */
  clear(): void;
  /** Frees the decoder and its thread; calls pending or made after reject. */
  close(): void;
  /**
   * Milliseconds of audio pushed and not yet decoded (optional; none said: 0). The session refuses audio while it is
   * far behind, so a recognizer on an overloaded machine never holds an unbounded backlog.
   */
  backlogMs?(): number;
}

export type StreamingOptions = {
  /** ISO 639-1 code, or null for the engine's own language (or detection). */
  language: string | null;
  /** Words and phrases the session expects (the `prompt`, cut like the OpenAI endpoint's), possibly empty. */
  vocabulary: readonly string[];
};

export interface StreamingEngine {
  readonly name: EngineName;
  /** A recognizer for one session; rejects with RecognitionError (src/transcription/engine.ts) when it cannot start. */
  open(options: StreamingOptions): Promise<TurnRecognizer>;
}
