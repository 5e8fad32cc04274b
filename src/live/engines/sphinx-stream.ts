/**
 * PocketSphinx for live sessions: its library (libpocketsphinx3) fed audio as it arrives, through bun:ffi on a thread
 * of its own per session, with the batch engine's model, tuned flags and vocabulary, so that a turn's final text is
 * the batch engine's text for the same audio.
 *
 * The library rather than a `pocketsphinx_continuous` process reading standard input: that program prints a
 * hypothesis only once an utterance has ended (it has no partial output), so it could give finals but never the
 * partial text a live caption needs while someone speaks (bench/live-sphinx.bench.ts prints what the library gives).
 */
import type { EngineName } from "../../tasks/recognition-choice.ts";
import { tunedDecoderFlags } from "../../transcription/engines/sphinx-decoder.ts";
import type { SphinxOptions } from "../../transcription/engines/sphinx.ts";
import { SphinxVocabulary, type SphinxModelFiles } from "../../transcription/engines/sphinx-vocabulary.ts";
import { liveSampleRate, type StreamingEngine, type StreamingOptions, type TurnRecognizer } from "../streaming-engine.ts";
import { sphinxLibraryFiles, type SphinxLibraryFiles } from "./sphinx-library.ts";
import { SphinxRecognizer } from "./sphinx-recognizer.ts";

/**
 * The batch engine's decoder arguments (sphinx.ts). Not its `-logfn /dev/null`: in the library that opens a log file
 * and closes the process's previous one, unguarded, so two sessions opening at once closed one FILE twice and
 * corrupted the C library's list of open files (the next fopen or fclose then spun for ever). The decoder thread turns
 * the library's log off instead (NativeSphinxDecoder.create).
 */
export function sphinxDecoderArguments(hmm: string, { lm, dict }: SphinxModelFiles): string[] {
  return ["-hmm", hmm, "-lm", lm, "-dict", dict, "-samprate", String(liveSampleRate), ...tunedDecoderFlags];
}

export class SphinxStreamingEngine implements StreamingEngine {
  readonly name: EngineName = "sphinx";
  private readonly vocabularies: SphinxVocabulary;

  /** `libraries`: the shared objects to load (tests name missing ones). */
  constructor(
    private readonly options: SphinxOptions,
    private readonly libraries: SphinxLibraryFiles = sphinxLibraryFiles,
  ) {
    this.vocabularies = new SphinxVocabulary({ lm: options.lm, dict: options.dict, cacheDir: options.vocabularyCacheDir });
  }

  /**
   * A recognizer with the session's vocabulary in its dictionary and model, whose files stay held (never evicted)
   * until it is closed. English only, as the batch engine: the service's offer refuses other languages before a
   * session opens, so `language` is not looked at here.
   */
  async open({ vocabulary }: StreamingOptions): Promise<TurnRecognizer> {
    const held = await this.vocabularies.holdModelFiles(vocabulary);
    try {
      return await SphinxRecognizer.start(sphinxDecoderArguments(this.options.hmm, held.files), held.release, this.libraries);
    } catch (error) {
      await held.release();
      throw error;
    }
  }
}
