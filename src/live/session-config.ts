/**
 * A session's configuration and what `session.update` does to it, decided without I/O: the model becomes an engine as on
 * `POST /v1/audio/transcriptions` (engineOfModel), the language is checked against that engine, the prompt becomes a
 * vocabulary. What the recognizer was opened with cannot change once audio has arrived (the turns so far were heard
 * with it); turn detection can.
 */
import { recognitionChoice, type EngineName, type RecognitionOffer } from "../tasks/recognition-choice.ts";
import { engineOfModel } from "../openai-compat/models.ts";
import { vocabularyOfPrompt } from "../openai-compat/prompt-vocabulary.ts";
import { OpenAiError } from "../http/openai-errors.ts";
import { ValidationFailedError } from "../core/errors.ts";
import type { SessionUpdate } from "./client-events.ts";
import type { EventProblem } from "./protocol-read.ts";
import type { SessionView } from "./server-events.ts";

export type TurnDetection = { threshold: number; prefixPaddingMs: number; silenceDurationMs: number };

export type SessionConfig = {
  rate: 16000 | 24000;
  model: string;
  engine: EngineName | null;
  language: string | null;
  prompt: string;
  vocabulary: string[];
  /** Asked for with `gpt-4o-transcribe-diarize`: the task names speakers. */
  speakers: boolean;
  /** null: the client commits each turn. */
  turnDetection: TurnDetection | null;
  include: string[];
};

/** OpenAI's defaults for server_vad. */
export const defaultTurnDetection: TurnDetection = { threshold: 0.5, prefixPaddingMs: 300, silenceDurationMs: 500 };

export const defaultSessionConfig: SessionConfig = {
  rate: 24000,
  model: "gpt-4o-transcribe",
  engine: null,
  language: null,
  prompt: "",
  vocabulary: [],
  speakers: false,
  turnDetection: defaultTurnDetection,
  include: [],
};

const diarizingModel = "gpt-4o-transcribe-diarize";

export type UpdateOutcome = { ok: true; config: SessionConfig } | { ok: false; problem: EventProblem };

/** The configuration after `update`, or why it is refused. `audioStarted`: the recognizer's settings are fixed. */
export function updatedConfig(current: SessionConfig, update: SessionUpdate, offer: RecognitionOffer, audioStarted: boolean): UpdateOutcome {
  const eventId = update.event_id ?? null;
  const refuse = (code: string, message: string, param: string | null): UpdateOutcome => ({ ok: false, problem: { code, message, param, eventId } });
  const input = update.session.audio?.input;
  const asked = input?.transcription;
  const rate = input?.format?.rate ?? (input?.format ? 24000 : current.rate);
  const model = asked?.model ?? current.model;
  const language = asked?.language !== undefined ? asked.language : current.language;
  const prompt = asked?.prompt ?? current.prompt;
  let engine: EngineName | null;
  let recognized: string | null;
  try {
    engine = engineOfModel(model, offer);
    recognized = recognitionChoice({ ...(engine !== null && { engine }), ...(language !== null && { language }) }, offer).language;
  } catch (error) {
    if (error instanceof OpenAiError) return refuse(error.code ?? "model_not_found", error.message, "session.audio.input.transcription.model");
    if (error instanceof ValidationFailedError) return refuse("unsupported_language", error.message, "session.audio.input.transcription.language");
    throw error;
  }
  const recognizerChanged = rate !== current.rate || model !== current.model || recognized !== current.language || prompt !== current.prompt;
  if (audioStarted && recognizerChanged) {
    return refuse(
      "session_already_started",
      "The audio format and transcription settings cannot change once audio has arrived; only turn_detection can.",
      "session.audio.input",
    );
  }
  const turnDetection =
    input?.turn_detection === undefined
      ? current.turnDetection
      : input.turn_detection === null
        ? null
        : {
            threshold: input.turn_detection.threshold ?? defaultTurnDetection.threshold,
            prefixPaddingMs: input.turn_detection.prefix_padding_ms ?? defaultTurnDetection.prefixPaddingMs,
            silenceDurationMs: input.turn_detection.silence_duration_ms ?? defaultTurnDetection.silenceDurationMs,
          };
  return {
    ok: true,
    config: {
      rate,
      model,
      engine,
      language: recognized,
      prompt,
      // Derived again only when the prompt changed: an update repeated in a loop costs its reading, not this.
      vocabulary: prompt === current.prompt ? current.vocabulary : vocabularyOfPrompt(prompt === "" ? undefined : prompt),
      speakers: model === diarizingModel,
      turnDetection,
      include: update.session.include ?? current.include,
    },
  };
}

/** The configuration as OpenAI's session object shows it. */
export function sessionView(id: string, config: SessionConfig): SessionView {
  const detection = config.turnDetection;
  return {
    type: "transcription",
    id,
    object: "realtime.transcription_session",
    audio: {
      input: {
        format: { type: "audio/pcm", rate: config.rate },
        transcription: { model: config.model, language: config.language, prompt: config.prompt },
        turn_detection:
          detection === null
            ? null
            : {
                type: "server_vad",
                threshold: detection.threshold,
                prefix_padding_ms: detection.prefixPaddingMs,
                silence_duration_ms: detection.silenceDurationMs,
              },
        noise_reduction: null,
      },
    },
    include: config.include,
  };
}
