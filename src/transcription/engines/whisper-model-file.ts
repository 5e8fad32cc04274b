/** What the engine reads of a whisper.cpp model file (the ggml format) before loading it: which languages it knows. */
import { closeSync, openSync, readSync } from "node:fs";
import { languagesOfModel } from "./whisper-languages.ts";

const ggmlMagic = 0x67676d6c;
/** whisper.cpp's own arithmetic (whisper_vocab::is_multilingual, num_languages): 51,865 tokens or more is multilingual. */
const multilingualVocabulary = 51_865;

/**
 * The language codes the model at `path` knows, from its vocabulary size (the second word of its header), or null
 * when the file cannot be read or is not a ggml model: then loading it fails with whisper.cpp's own reason.
 */
export function whisperModelLanguages(path: string): readonly string[] | null {
  let fd: number | null = null;
  try {
    fd = openSync(path, "r");
    const header = new Uint8Array(8);
    if (readSync(fd, header, 0, 8, 0) < 8) return null;
    const view = new DataView(header.buffer);
    if (view.getUint32(0, true) !== ggmlMagic) return null;
    const vocabulary = view.getInt32(4, true);
    return languagesOfModel(vocabulary >= multilingualVocabulary ? vocabulary - 51_765 - 1 : 0);
  } catch {
    return null;
  } finally {
    if (fd !== null) closeSync(fd);
  }
}
