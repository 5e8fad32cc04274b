import { RecognitionError, type Recognition, type RecognizeOptions, type RecognizedWord, type SpeechEngine } from "../engine.ts";
import { backgroundWorkNice, lowerProcessPriority } from "../../core/thread-priority.ts";
import { diesWithParent } from "../../core/child-process.ts";
import { SphinxVocabulary, type SphinxModelFiles } from "./sphinx-vocabulary.ts";
import { tunedDecoderFlags } from "./sphinx-decoder.ts";
import { isFiller } from "./sphinx-tokens.ts";

export type SphinxOptions = {
  binary: string;
  hmm: string;
  lm: string;
  dict: string;
  /** Where vocabularies' dictionaries and models are kept: the service passes `<transcription temp root>/sphinx-vocabulary`. */
  vocabularyCacheDir?: string;
};

/** `word start end posterior` lines of `pocketsphinx_continuous -time yes` (times in seconds). */
const timedWord = /^(\S+) (\d+(?:\.\d+)?) (\d+(?:\.\d+)?) (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)$/i;

/** Parses the word times PocketSphinx prints; `word(2)` is the second pronunciation of `word`. */
export function parseSphinxOutput(stdout: string): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  for (const line of stdout.split("\n")) {
    const match = timedWord.exec(line.trim());
    if (!match) continue;
    const token = match[1]!;
    if (isFiller(token)) continue;
    const confidence = Number(match[4]);
    words.push({
      text: token.replace(/\(\d+\)$/, ""),
      start: Math.round(Number(match[2]) * 1000),
      end: Math.round(Number(match[3]) * 1000),
      confidence: Number.isFinite(confidence) ? Math.min(1, Math.max(0, confidence)) : null,
    });
  }
  return words;
}

/**
 * PocketSphinx (Debian `pocketsphinx`, model `pocketsphinx-en-us`): one `pocketsphinx_continuous`
 * process per chunk, so chunks run in parallel on every core. English only, no punctuation.
 */
export class SphinxEngine implements SpeechEngine {
  readonly name = "sphinx";
  private readonly vocabularies: SphinxVocabulary;
  constructor(private readonly options: SphinxOptions) {
    this.vocabularies = new SphinxVocabulary({ lm: options.lm, dict: options.dict, cacheDir: options.vocabularyCacheDir });
  }

  async recognize(wavPath: string, { signal, vocabulary, bulk }: RecognizeOptions): Promise<Recognition> {
    // The task's vocabulary: the configured dictionary and model with its words added and boosted (cached per vocabulary),
    // held until the process has ended so that no eviction removes them before it has read them.
    return this.vocabularies.withModelFiles(vocabulary, (files) => this.run(wavPath, files, signal, bulk === true));
  }

  private async run(wavPath: string, { lm, dict }: SphinxModelFiles, signal: AbortSignal | undefined, bulk: boolean): Promise<Recognition> {
    const { binary, hmm } = this.options;
    let child: Bun.Subprocess<"ignore", "pipe", "pipe">;
    try {
      child = Bun.spawn(
        diesWithParent([
          binary,
          "-infile",
          wavPath,
          "-time",
          "yes",
          "-hmm",
          hmm,
          "-lm",
          lm,
          "-dict",
          dict,
          "-samprate",
          "16000",
          ...tunedDecoderFlags,
          "-logfn",
          "/dev/null",
        ]),
        {
          stdin: "ignore",
          stdout: "pipe",
          stderr: "pipe",
          signal,
        },
      );
    } catch (error) {
      throw new RecognitionError(`Speech recognition is not available: ${binary} could not be started (${(error as Error).message}).`);
    }
    if (bulk) lowerProcessPriority(child.pid, backgroundWorkNice);
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    if (code !== 0) {
      const detail = stderr.trim().split("\n").filter(Boolean).slice(-1)[0] ?? `exit code ${code}`;
      throw new RecognitionError(`Speech recognition (PocketSphinx) failed: ${detail}`);
    }
    return { words: parseSphinxOutput(stdout), punctuated: false };
  }
}
