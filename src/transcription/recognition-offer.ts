import { existsSync } from "node:fs";
import { basename } from "node:path";
import type { EngineName, RecognitionOffer } from "../tasks/recognition-choice.ts";
import type { TranscriptionConfig } from "./config.ts";
import { whisperLanguages } from "./engines/whisper-languages.ts";
import { whisperModelLanguages } from "./engines/whisper-model-file.ts";

type EngineSettings = Pick<TranscriptionConfig, "engine" | "sphinx" | "whisper" | "openai">;

/** Whether PocketSphinx can run here: its program on PATH, its model's files there (Debian's packages). */
const sphinxInstalled = ({ sphinx }: EngineSettings) => Bun.which(sphinx.binary) !== null && existsSync(sphinx.lm) && existsSync(sphinx.dict);

/**
 * The engines a task may name: the default (TRANSCRIPTION_ENGINE, which `admin config --check` checks), and beside it
 * PocketSphinx where it is installed, whisper where WHISPER_MODEL names a file that is there, and an OpenAI-compatible
 * endpoint once TRANSCRIPTION_OPENAI_URL is set. Looked at once, at start: an engine that could not run is not
 * offered, so a task asking for it is a 422 instead of a task that fails.
 */
export function offeredEngines(config: EngineSettings): EngineName[] {
  const engines: EngineName[] = [config.engine];
  if (sphinxInstalled(config)) engines.push("sphinx");
  if (config.whisper.model !== null && existsSync(config.whisper.model)) engines.push("whisper");
  if (config.openai) engines.push("openai");
  return [...new Set(engines)];
}

/** whisper.cpp's English-only models are named `*.en` (`ggml-base.en.bin`); the engine reads the file's own list too. */
const englishOnlyModel = (path: string | null) => path !== null && /\.en(\.bin)?$/i.test(basename(path));

/**
 * The languages the model knows, from its own header (English alone for `*.en` models; 99 for most others, Cantonese
 * only in large-v3); by its name where the file cannot be read yet.
 */
function whisperLanguagesOf(model: string | null): readonly string[] {
  const known = model === null ? null : whisperModelLanguages(model);
  return known ?? (englishOnlyModel(model) ? ["en"] : whisperLanguages.filter((code) => code !== "yue"));
}

/** What task creation checks a task's engine and language against. */
export function recognitionOfferOf(config: EngineSettings): RecognitionOffer {
  return {
    defaultEngine: config.engine,
    engines: offeredEngines(config),
    languagesOf(engine) {
      if (engine === "sphinx") return ["en"];
      if (engine === "whisper") return whisperLanguagesOf(config.whisper.model);
      return null; // the endpoint decides
    },
  };
}
