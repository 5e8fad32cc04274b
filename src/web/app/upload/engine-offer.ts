import { api, call } from "../api.ts";

const load = () => call(api.GET("/api/transcription/engines"));

/** What the service offers (GET /api/transcription/engines): its default engine, and each engine's languages (null: any). */
export type EngineOffer = Awaited<ReturnType<typeof load>>;
export type EngineName = EngineOffer["default"];

let offer: Promise<EngineOffer> | null = null;

/** The engines and their languages, asked once per visit (they change only when the operator restarts the service). */
export function engineOffer(): Promise<EngineOffer> {
  offer ??= load().catch((error: unknown) => {
    offer = null;
    throw error;
  });
  return offer;
}

const engineLabels: Record<EngineName, string> = {
  sphinx: "PocketSphinx",
  whisper: "Whisper",
  openai: "OpenAI-compatible service",
};

export const engineLabel = (name: EngineName) => engineLabels[name];

const names = new Intl.DisplayNames(["en"], { type: "language" });

/** "German" for `de`; the code itself where the browser knows no name for it. */
export function languageName(code: string): string {
  try {
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/**
 * The languages the form offers for `engine`, by name: its own list, or, for one that takes any (null), every
 * language another engine lists (English at least), since the form cannot list every ISO 639 code usefully.
 */
export function languagesFor(offer: EngineOffer, engine: EngineName): { code: string; name: string }[] {
  const own = offer.engines.find((candidate) => candidate.name === engine)?.languages;
  const codes = own ?? [...new Set(["en", ...offer.engines.flatMap((candidate) => candidate.languages ?? [])])];
  return codes.map((code) => ({ code, name: languageName(code) })).sort((a, b) => a.name.localeCompare(b.name, "en"));
}
