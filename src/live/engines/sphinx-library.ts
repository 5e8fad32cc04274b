/**
 * PocketSphinx's C library (Debian `libpocketsphinx3` 0.8+5prealpha, its configuration in `libsphinxbase3`) through
 * bun:ffi, for the live engine's decoder thread only: every call here runs on the caller's thread, and decoding holds
 * it for as long as the audio takes, so the event loop's thread never loads it.
 *
 * Signatures are those of 5prealpha's headers (`ps_get_hyp(ps, out_best_score)`, `ps_seg_iter(ps)`; 0.8's took more
 * arguments). `cmd_ln_init` is variadic, which bun:ffi cannot call, so the configuration is parsed from an argv array
 * with `cmd_ln_parse_r` against the decoder's own argument table (`ps_args`), as the programs' `main` does.
 */
import { dlopen, FFIType } from "bun:ffi";

const sphinxbaseSymbols = {
  cmd_ln_parse_r: { args: [FFIType.ptr, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.ptr },
  cmd_ln_free_r: { args: [FFIType.ptr], returns: FFIType.i32 },
  logmath_exp: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.f64 },
  err_set_logfp: { args: [FFIType.ptr], returns: FFIType.void },
} as const;

const pocketsphinxSymbols = {
  ps_args: { args: [], returns: FFIType.ptr },
  ps_init: { args: [FFIType.ptr], returns: FFIType.ptr },
  ps_free: { args: [FFIType.ptr], returns: FFIType.i32 },
  ps_start_stream: { args: [FFIType.ptr], returns: FFIType.i32 },
  ps_start_utt: { args: [FFIType.ptr], returns: FFIType.i32 },
  ps_process_raw: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
  ps_get_in_speech: { args: [FFIType.ptr], returns: FFIType.u8 },
  ps_end_utt: { args: [FFIType.ptr], returns: FFIType.i32 },
  ps_get_hyp: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.cstring },
  ps_get_logmath: { args: [FFIType.ptr], returns: FFIType.ptr },
  ps_seg_iter: { args: [FFIType.ptr], returns: FFIType.ptr },
  ps_seg_next: { args: [FFIType.ptr], returns: FFIType.ptr },
  ps_seg_word: { args: [FFIType.ptr], returns: FFIType.cstring },
  ps_seg_frames: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.void },
  ps_seg_prob: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
} as const;

/** The shared objects Debian installs (tests name missing ones to see the engine refuse to open). */
export type SphinxLibraryFiles = { sphinxbase: string; pocketsphinx: string };
export const sphinxLibraryFiles: SphinxLibraryFiles = { sphinxbase: "libsphinxbase.so.3", pocketsphinx: "libpocketsphinx.so.3" };

export type SphinxLibrary = {
  sphinxbase: ReturnType<typeof dlopen<typeof sphinxbaseSymbols>>["symbols"];
  pocketsphinx: ReturnType<typeof dlopen<typeof pocketsphinxSymbols>>["symbols"];
};

let loaded: SphinxLibrary | undefined;

/** The library, loaded once per thread; throws an Error that names the package when it is not installed. */
export function sphinxLibrary(files: SphinxLibraryFiles = sphinxLibraryFiles): SphinxLibrary {
  if (loaded) return loaded;
  try {
    // sphinxbase first: pocketsphinx links against it, and a missing sphinxbase is the clearer message.
    const sphinxbase = dlopen(files.sphinxbase, sphinxbaseSymbols).symbols;
    const pocketsphinx = dlopen(files.pocketsphinx, pocketsphinxSymbols).symbols;
    loaded = { sphinxbase, pocketsphinx };
  } catch (error) {
    throw new Error(
      `PocketSphinx's library is not installed (Debian: apt-get install libpocketsphinx3, which the pocketsphinx package scripts/setup.sh installs brings): ${
        error instanceof Error ? error.message : String(error)
      }`,
    );
  }
  return loaded;
}
