/**
 * One turn's decoding, the way `pocketsphinx_continuous` (the batch engine) decodes a file, so that a turn and a
 * chunk of the same audio come out the same: a stream is started at the turn's first sample (word times count from
 * it), and an utterance ends wherever the decoder's own voice-activity detection hears speech stop, a new one starting
 * at once. A long turn (a client that commits by hand) is thus several short utterances: the search never grows with
 * the turn, the cepstral mean is estimated per utterance, and finish() only ends the last one.
 */
import type { TurnResult } from "../streaming-engine.ts";
import type { RecognizedWord } from "../../transcription/engine.ts";
import { hypothesisWords, wordsOfSegments, type DecodedSegment } from "./sphinx-words.ts";

export type { DecodedSegment } from "./sphinx-words.ts";

/** What the turn logic needs of a decoder: the library's calls (sphinx-native-decoder.ts), or a fake in unit tests. */
export interface UtteranceDecoder {
  /** Restarts frame counting: segment frames count from here. */
  startStream(): void;
  startUtterance(): void;
  process(samples: Int16Array): void;
  /** Whether the decoder's voice-activity detection is in speech after the audio processed so far. */
  inSpeech(): boolean;
  /** The current utterance's best hypothesis so far. */
  hypothesis(): string;
  endUtterance(): void;
  /** The ended utterance's segments. */
  segments(): DecodedSegment[];
  free(): void;
}

/** `pocketsphinx_continuous` reads 2048 samples at a time and looks at the speech state after each read. */
export const decoderBlockSamples = 2048;

export class SphinxTurnDecoding {
  /** Whether a turn is open (audio pushed since the last finish or clear). */
  private active = false;
  /** Whether the current utterance has heard speech: its end, when the speech stops, ends the utterance. */
  private heardSpeech = false;
  /** The words of the turn's ended utterances. */
  private ended: RecognizedWord[] = [];

  constructor(private readonly decoder: UtteranceDecoder) {}

  process(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (!this.active) {
      this.decoder.startStream();
      this.decoder.startUtterance();
      this.active = true;
    }
    for (let at = 0; at < samples.length; at += decoderBlockSamples) {
      this.decoder.process(samples.subarray(at, at + decoderBlockSamples));
      if (this.decoder.inSpeech()) this.heardSpeech = true;
      else if (this.heardSpeech) {
        this.endUtterance();
        this.decoder.startUtterance();
      }
    }
  }

  /** The turn's text so far: its ended utterances' words, then the current utterance's hypothesis. */
  partial(): string {
    if (!this.active) return "";
    return [...this.ended.map((word) => word.text), ...hypothesisWords(this.decoder.hypothesis())].join(" ");
  }

  /** Ends the turn; the next process() starts another. */
  finish(): TurnResult {
    if (this.active) this.endUtterance();
    const words = this.ended;
    this.reset();
    return { text: words.map((word) => word.text).join(" "), words, punctuated: false };
  }

  /** Drops the turn's audio and words. */
  clear(): void {
    if (this.active) this.decoder.endUtterance();
    this.reset();
  }

  private endUtterance(): void {
    this.decoder.endUtterance();
    // As pocketsphinx_continuous: an utterance in which the detection never heard speech has no words.
    if (this.heardSpeech) this.ended.push(...wordsOfSegments(this.decoder.segments()));
    this.heardSpeech = false;
  }

  private reset(): void {
    this.active = false;
    this.heardSpeech = false;
    this.ended = [];
  }
}
