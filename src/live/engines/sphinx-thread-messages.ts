/** What the live PocketSphinx recognizer (sphinx-recognizer.ts) and its decoder thread (sphinx-decoder-thread.ts) say to each other. */
import type { TurnResult } from "../streaming-engine.ts";
import type { SphinxLibraryFiles } from "./sphinx-library.ts";

export type ToDecoderThread =
  /** Loads the library and the model; answered by `ready` or `failed`. */
  | { type: "open"; args: string[]; libraries: SphinxLibraryFiles }
  /** Audio for the current turn, its buffer handed over (transferred). Not answered. */
  | { type: "push"; samples: Int16Array }
  /** Answered, in order with the audio, by `partial` and `finished` with the same id. */
  | { type: "partial"; id: number }
  | { type: "finish"; id: number }
  | { type: "clear" }
  /** Frees the decoder; answered by `closed`, after which the thread is terminated. */
  | { type: "close" };

export type FromDecoderThread =
  | { type: "ready" }
  | { type: "failed"; message: string }
  /** Samples pushed that the thread is done with (decoded, or dropped by `clear`), so the recognizer knows its backlog. */
  | { type: "decoded"; samples: number }
  | { type: "partial"; id: number; text: string }
  | { type: "finished"; id: number; result: TurnResult }
  | { type: "closed" };
