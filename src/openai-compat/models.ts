import { languageName as englishName, type EngineName, type RecognitionOffer } from "../tasks/recognition-choice.ts";
import type { TranscriptionConfig } from "../transcription/config.ts";
import { OpenAiError } from "../http/openai-errors.ts";

/** One entry of `GET /v1/models`, as OpenAI writes it. */
export type ServedModel = { id: string; object: "model"; created: number; owned_by: string };

/** When this process started serving: OpenAI's `created` says when a model appeared, ours appear at start. */
const startedAt = Math.floor(Date.now() / 1000);

/**
 * The transcription models OpenAI documents (the `openai` package's `AudioModel`): a client written for OpenAI
 * sends one of them, so each runs on the service's default engine (TRANSCRIPTION_ENGINE).
 */
export const openAiTranscriptionModels: readonly string[] = [
  "whisper-1",
  "gpt-4o-transcribe",
  "gpt-4o-mini-transcribe",
  "gpt-4o-mini-transcribe-2025-12-15",
  "gpt-4o-transcribe-diarize",
];

/** Every name `model` takes, in the order `GET /v1/models` lists them: OpenAI's, then each offered engine's own (the default first). */
export const servedModelNames = (offer: RecognitionOffer): string[] => [...openAiTranscriptionModels, ...offer.engines];

export function servedModels(offer: RecognitionOffer): ServedModel[] {
  return servedModelNames(offer).map((id) => ({ id, object: "model", created: startedAt, owned_by: "scribe" }));
}

/**
 * OpenAI's answer for a model it does not have: 404 `model_not_found` (its SDKs raise NotFoundError). The name is
 * quoted as JSON, so a control character in it shows as an escape rather than breaking the message.
 */
export function unknownModelError(model: string, offer: RecognitionOffer): OpenAiError {
  return new OpenAiError(
    404,
    `The model ${JSON.stringify(model)} does not exist here; this service serves ${servedModelNames(offer).join(", ")} (GET /v1/models).`,
    "model_not_found",
    {},
    "model",
  );
}

/**
 * The engine a `model` names: null (the default engine) for OpenAI's names, the engine for an offered engine's own
 * name; any other name, an engine this service does not offer included, is `unknownModelError`. Compared as
 * strings against lists, so names such as `__proto__` or `constructor` are simply unknown.
 */
export function engineOfModel(model: string, offer: RecognitionOffer): EngineName | null {
  if (openAiTranscriptionModels.includes(model)) return null;
  const engine = offer.engines.find((name) => name === model);
  if (engine === undefined) throw unknownModelError(model, offer);
  return engine;
}

/** A model by its id (`GET /v1/models/{model}`), or `unknownModelError`. */
export function servedModel(model: string, offer: RecognitionOffer): ServedModel {
  const found = servedModels(offer).find((served) => served.id === model);
  if (!found) throw unknownModelError(model, offer);
  return found;
}

/** A language code as OpenAI's `verbose_json` names it: the English name in lower case (`en` → `english`). */
export const languageName = (code: string): string => englishName(code).toLowerCase();

/**
 * The language `verbose_json` reports for a task: the one asked for; else the engine's only language (PocketSphinx,
 * an English-only whisper model), or the configured one; else "unknown", since whisper and an OpenAI endpoint detect it
 * and their words do not say which they found.
 */
export function servedLanguage(transcription: TranscriptionConfig, offer: RecognitionOffer, engine: EngineName | null, asked: string | null): string {
  if (asked !== null) return languageName(asked);
  const recognising = engine ?? offer.defaultEngine;
  const only = offer.languagesOf(recognising);
  if (only?.length === 1) return languageName(only[0]!);
  const configured = recognising === "whisper" ? transcription.whisper.language : recognising === "openai" ? (transcription.openai?.language ?? null) : null;
  return configured === null || configured === "auto" ? "unknown" : languageName(configured);
}
