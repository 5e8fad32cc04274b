import { join } from "node:path";
import type { TranscriptionConfig } from "../config.ts";
import { transcriptionTempRoot } from "../temp-sweep.ts";
import type { EngineName } from "../../tasks/recognition-choice.ts";
import { offeredEngines } from "../recognition-offer.ts";
import type { SpeechEngine } from "../engine.ts";
import { SphinxEngine } from "./sphinx.ts";
import { WhisperEngine } from "./whisper.ts";
import { OpenAiEngine } from "./openai.ts";

/** The engine TRANSCRIPTION_ENGINE names (the config loader has checked that its settings are there). */
export function createEngine(config: TranscriptionConfig, name: EngineName = config.engine): SpeechEngine {
  switch (name) {
    case "sphinx":
      // Vocabularies (30 MB each) are built where TRANSCRIPTION_TMPDIR says, beside the media being transcribed.
      return new SphinxEngine({ ...config.sphinx, vocabularyCacheDir: join(transcriptionTempRoot(config.tempDir), "sphinx-vocabulary") });
    case "whisper":
      return new WhisperEngine({ ...config.whisper, model: config.whisper.model! });
    case "openai":
      return new OpenAiEngine(config.openai!);
  }
}

/** Every engine a task may name (recognition-offer.ts), by name: each loads its model only when first used. */
export function createEngines(config: TranscriptionConfig): Map<EngineName, SpeechEngine> {
  return new Map(offeredEngines(config).map((name) => [name, createEngine(config, name)]));
}
