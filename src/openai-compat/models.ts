import type { TranscriptionConfig } from "../transcription/config.ts";
import type { ServedModel } from "./routes.ts";

/** When this process started serving: OpenAI's `created` says when a model appeared, ours appear at start. */
const startedAt = Math.floor(Date.now() / 1000);

/**
 * What `GET /v1/models` lists: `whisper-1`, the name clients written for OpenAI ask for, and the configured
 * engine's own name. Both, and any other name, run on that engine.
 */
export function servedModels(transcription: TranscriptionConfig): ServedModel[] {
  return ["whisper-1", transcription.engine].map((id) => ({ id, object: "model", created: startedAt, owned_by: "scribe" }));
}

/**
 * The language `verbose_json` reports: PocketSphinx's model is US English; whisper and an OpenAI endpoint
 * recognise the configured language, or detect it, which their words do not tell us ("unknown").
 */
export function servedLanguage(transcription: TranscriptionConfig): string {
  if (transcription.engine === "sphinx") return "english";
  const configured = transcription.engine === "whisper" ? transcription.whisper.language : (transcription.openai?.language ?? null);
  return configured ?? "unknown";
}
