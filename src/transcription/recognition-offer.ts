import { basename } from "node:path";
import type { EngineName, RecognitionOffer } from "../tasks/recognition-choice.ts";
import type { TranscriptionConfig } from "./config.ts";
import { whisperLanguages } from "./engines/whisper-languages.ts";

/**
 * The engines a task may name: the default (TRANSCRIPTION_ENGINE), PocketSphinx (which needs no settings), whisper
 * once WHISPER_MODEL is set and an OpenAI-compatible endpoint once TRANSCRIPTION_OPENAI_URL is.
 */
export function offeredEngines(config: Pick<TranscriptionConfig, "engine" | "whisper" | "openai">): EngineName[] {
  const engines: EngineName[] = [config.engine, "sphinx"];
  if (config.whisper.model) engines.push("whisper");
  if (config.openai) engines.push("openai");
  return [...new Set(engines)];
}

/** whisper.cpp's English-only models are named `*.en` (`ggml-base.en.bin`); the engine reads the file's own list too. */
const englishOnlyModel = (path: string | null) => path !== null && /\.en(\.bin)?$/i.test(basename(path));

/** What task creation checks a task's engine and language against. */
export function recognitionOfferOf(config: Pick<TranscriptionConfig, "engine" | "whisper" | "openai">): RecognitionOffer {
  return {
    defaultEngine: config.engine,
    engines: offeredEngines(config),
    languagesOf(engine) {
      if (engine === "sphinx") return ["en"];
      if (engine === "whisper") return englishOnlyModel(config.whisper.model) ? ["en"] : whisperLanguages;
      return null; // the endpoint decides
    },
  };
}
