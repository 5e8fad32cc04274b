/**
 * One PocketSphinx decoder (`ps_decoder_t`) behind the small interface the turn logic uses (sphinx-turn.ts). Lives on
 * the decoder thread: each call is a synchronous C call that may take as long as the audio it is given.
 */
import { ptr, type Pointer } from "bun:ffi";
import { sphinxLibrary, type SphinxLibrary, type SphinxLibraryFiles } from "./sphinx-library.ts";
import type { DecodedSegment, UtteranceDecoder } from "./sphinx-turn.ts";

const cString = (text: string) => Buffer.from(`${text}\0`, "utf8");
/** A pointer the library returned (bun:ffi hands a 64-bit one back as a bigint). */
type Handle = Pointer | bigint;

export class NativeSphinxDecoder implements UtteranceDecoder {
  private decoder: Handle | null;

  private constructor(
    private readonly lib: SphinxLibrary,
    private config: Handle | null,
    decoder: Handle,
  ) {
    this.decoder = decoder;
  }

  /** A decoder configured by command-line style arguments (`-hmm <dir> -lm <file> ...`); throws when it cannot start. */
  static create(args: readonly string[], files?: SphinxLibraryFiles): NativeSphinxDecoder {
    const lib = sphinxLibrary(files);
    // The library's log off, process-wide: it only sets two globals (no file is opened or closed), so decoders
    // opening at once on their threads cannot race on it as they did on `-logfn` (sphinx-stream.ts).
    lib.sphinxbase.err_set_logfp(null);
    const strings = args.map(cString);
    const argv = new BigUint64Array(strings.map((s) => BigInt(ptr(s))));
    const config = lib.sphinxbase.cmd_ln_parse_r(null, lib.pocketsphinx.ps_args(), args.length, ptr(argv), 0);
    if (!config) throw new Error(`PocketSphinx refused its arguments: ${args.join(" ")}`);
    const decoder = lib.pocketsphinx.ps_init(config);
    if (!decoder) {
      lib.sphinxbase.cmd_ln_free_r(config);
      throw new Error("PocketSphinx could not load its model (the SPHINX_HMM, SPHINX_LM and SPHINX_DICT settings name its files)");
    }
    return new NativeSphinxDecoder(lib, config, decoder);
  }

  private get ps(): Handle {
    if (!this.decoder) throw new Error("the PocketSphinx decoder was freed");
    return this.decoder;
  }

  startStream(): void {
    this.lib.pocketsphinx.ps_start_stream(this.ps);
  }

  startUtterance(): void {
    if (this.lib.pocketsphinx.ps_start_utt(this.ps) < 0) throw new Error("PocketSphinx could not start an utterance");
  }

  process(samples: Int16Array): void {
    if (samples.length === 0) return;
    if (this.lib.pocketsphinx.ps_process_raw(this.ps, ptr(samples), samples.length, 0, 0) < 0) throw new Error("PocketSphinx failed to decode audio");
  }

  inSpeech(): boolean {
    return this.lib.pocketsphinx.ps_get_in_speech(this.ps) !== 0;
  }

  hypothesis(): string {
    return String(this.lib.pocketsphinx.ps_get_hyp(this.ps, null) ?? "");
  }

  endUtterance(): void {
    this.lib.pocketsphinx.ps_end_utt(this.ps);
  }

  /** The last utterance's segments (words, fillers, silences) with frames and posteriors: the iterator frees itself at its end. */
  segments(): DecodedSegment[] {
    const { pocketsphinx, sphinxbase } = this.lib;
    const logmath = pocketsphinx.ps_get_logmath(this.ps);
    const start = new Int32Array(1);
    const end = new Int32Array(1);
    const segments: DecodedSegment[] = [];
    for (let segment = pocketsphinx.ps_seg_iter(this.ps); segment; segment = pocketsphinx.ps_seg_next(segment)) {
      pocketsphinx.ps_seg_frames(segment, ptr(start), ptr(end));
      const logPosterior = pocketsphinx.ps_seg_prob(segment, null, null, null);
      segments.push({
        word: String(pocketsphinx.ps_seg_word(segment) ?? ""),
        startFrame: start[0]!,
        endFrame: end[0]!,
        posterior: logmath ? sphinxbase.logmath_exp(logmath, logPosterior) : Number.NaN,
      });
    }
    return segments;
  }

  free(): void {
    if (this.decoder) this.lib.pocketsphinx.ps_free(this.decoder);
    if (this.config) this.lib.sphinxbase.cmd_ln_free_r(this.config);
    this.decoder = null;
    this.config = null;
  }
}
