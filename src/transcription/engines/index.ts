import type { TranscriptionConfig } from "../config.ts";
import type { SpeechEngine } from "../engine.ts";
import { SphinxEngine } from "./sphinx.ts";
import { WhisperEngine } from "./whisper.ts";
import { OpenAiEngine } from "./openai.ts";

/** The engine TRANSCRIPTION_ENGINE names (the config loader has checked that its settings are there). */
export function createEngine(config: TranscriptionConfig): SpeechEngine {
  switch (config.engine) {
    case "sphinx":
      return new SphinxEngine(config.sphinx);
    case "whisper":
      return new WhisperEngine({ ...config.whisper, model: config.whisper.model! });
    case "openai":
      return new OpenAiEngine(config.openai!);
  }
}
