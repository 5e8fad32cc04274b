import { join } from "node:path";
import type { EngineName, RecognitionOffer } from "../../tasks/recognition-choice.ts";
import type { TranscriptionConfig } from "../../transcription/config.ts";
import { RecognitionError, type SpeechEngine } from "../../transcription/engine.ts";
import { createEngine } from "../../transcription/engines/index.ts";
import { transcriptionTempRoot } from "../../transcription/temp-sweep.ts";
import type { StreamingEngine } from "../streaming-engine.ts";
import { SphinxStreamingEngine } from "./sphinx-stream.ts";
import { WindowedStreamingEngine } from "./windowed-engine.ts";
import type { WindowOptions } from "./windowed-recognizer.ts";

/** The live engines of one process, which live sessions take theirs from. */
export type LiveEngines = {
  /**
   * The streaming engine a session asks for; null: the service's default (TRANSCRIPTION_ENGINE). An engine the
   * service does not offer (recognition-offer.ts) is still answered, with one whose `open` rejects with a
   * RecognitionError that says so.
   */
  engineFor(name: EngineName | null): StreamingEngine;
  /** Releases what the engines loaded (whisper's model), at shutdown. */
  close(): Promise<void>;
};

const unoffered = (name: EngineName): StreamingEngine => ({
  name,
  open: () => Promise.reject(new RecognitionError(`The ${name} engine is not offered by this service`)),
});

/**
 * PocketSphinx decodes as audio arrives (sphinx-stream.ts); whisper and OpenAI-compatible endpoints, which recognise
 * whole files, go through a sliding window (windowed-engine.ts). Each engine is made when a session first asks for it,
 * and a batch engine loads its model on its first recognition, so a process whose sessions never use whisper never
 * loads it. One batch engine per process serves every session (apart from the transcription workers' own, so that
 * live partials never wait behind a task's chunks).
 */
export function liveEngines(config: TranscriptionConfig, offer: RecognitionOffer, window: Partial<WindowOptions> = {}): LiveEngines {
  const made = new Map<EngineName, StreamingEngine>();
  const batches: SpeechEngine[] = [];
  const tempRoot = transcriptionTempRoot(config.tempDir);
  const make = (name: EngineName): StreamingEngine => {
    if (!offer.engines.includes(name)) return unoffered(name);
    switch (name) {
      case "sphinx":
        return new SphinxStreamingEngine({ ...config.sphinx, vocabularyCacheDir: join(tempRoot, "sphinx-vocabulary") });
      case "whisper":
      case "openai": {
        const batch = createEngine(config, name);
        batches.push(batch);
        return new WindowedStreamingEngine(name, batch, tempRoot, window);
      }
    }
  };
  return {
    engineFor(name) {
      const wanted = name ?? offer.defaultEngine;
      const engine = made.get(wanted) ?? make(wanted);
      made.set(wanted, engine);
      return engine;
    },
    async close() {
      await Promise.all(batches.map((batch) => batch.close?.()));
    },
  };
}
