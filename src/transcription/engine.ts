/**
 * The speech recognition port. An engine recognises one chunk of audio: a 16 kHz mono 16-bit WAV
 * file that the pipeline cut at pauses. Everything else (decoding, chunking, stitching, segments,
 * speakers) is the pipeline's, so every engine gets the same treatment.
 */
export type RecognizedWord = {
  /** As the engine wrote it; punctuation attached when the engine punctuates. */
  text: string;
  /** Milliseconds from the start of the chunk (of the media, once stitched). */
  start: number;
  end: number;
  /** 0..1 when the engine says how sure it is. */
  confidence: number | null;
};

export type Recognition = {
  words: RecognizedWord[];
  /** Whether the words carry punctuation and case (whisper, OpenAI) or not (PocketSphinx). */
  punctuated: boolean;
};

export type RecognizeOptions = {
  /** The chunk's length, for engines that answer without times. */
  durationMs: number;
  signal?: AbortSignal;
  /** The task's language (an ISO 639-1 code), or null/absent for the engine's own (or detection). */
  language?: string | null;
  /** Words and phrases the task expects (names, terms): added to the engine's vocabulary or given as its prompt. */
  vocabulary?: readonly string[];
  /**
   * The chunk's account already has another being recognised: an engine that runs a process of its own here runs it
   * behind other work (a lower CPU priority), so that other accounts' first chunks and requests come first.
   */
  bulk?: boolean;
};

export interface SpeechEngine {
  readonly name: string;
  recognize(wavPath: string, options: RecognizeOptions): Promise<Recognition>;
  close?(): Promise<void>;
}

/** The engine could not recognise the audio; `message` is shown to the user as the failure reason. */
export class RecognitionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RecognitionError";
  }
}

/**
 * Engines that only time whole phrases (whisper segments, OpenAI segments) give each word a share
 * of the phrase's time in proportion to its length: good enough to cut sentences and align speakers.
 */
export function wordsOfPhrase(text: string, start: number, end: number, confidence: number | null): RecognizedWord[] {
  const tokens = text.split(/\s+/).filter(Boolean);
  const weights = tokens.map((t) => Math.max(1, t.replace(/[^\p{L}\p{N}]/gu, "").length));
  const total = weights.reduce((a, b) => a + b, 0);
  const span = Math.max(0, end - start);
  let at = start;
  return tokens.map((token, i) => {
    const length = total === 0 ? 0 : (span * weights[i]!) / total;
    const word = { text: token, start: Math.round(at), end: Math.round(at + length), confidence };
    at += length;
    return word;
  });
}
