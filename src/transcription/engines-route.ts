import { Elysia, t } from "elysia";
import type { Authenticated } from "../accounts/authentication.ts";
import { stringEnum } from "../http/openapi/string-enum.ts";
import { engineNames, type RecognitionOffer } from "../tasks/recognition-choice.ts";

const engineName = stringEnum(engineNames);

export const offeredEnginesSchema = t.Object({
  default: engineName,
  engines: t.Array(
    t.Object({
      name: engineName,
      languages: t.Nullable(t.Array(t.String()), {
        description: "The ISO 639-1 codes the engine recognises; null: any, the engine decides (an OpenAI-compatible endpoint).",
      }),
    }),
  ),
});

/** What the offer answers: the default first among the engines, as the service lists them. */
export function offeredEnginesView(offer: RecognitionOffer): typeof offeredEnginesSchema.static {
  return {
    default: offer.defaultEngine,
    engines: offer.engines.map((name) => {
      const languages = offer.languagesOf(name);
      return { name, languages: languages === null ? null : [...languages] };
    }),
  };
}

/**
 * `GET /api/transcription/engines`: the engines a task may name (`engine` on task creation and upload completion)
 * and the languages each recognises, so a client (the web app's upload form) offers only what will be accepted.
 */
export function enginesRoute({ offer, authenticated }: { offer: RecognitionOffer; authenticated: Authenticated }) {
  const view = offeredEnginesView(offer); // the configuration is read once at start: the answer never changes
  return new Elysia({ name: "transcription-engines-route" }).use(authenticated).get("/api/transcription/engines", () => view, {
    response: { 200: offeredEnginesSchema },
    detail: {
      tags: ["Tasks"],
      security: [{ bearer: [] }],
      summary: "The speech recognition engines this service offers",
      description:
        "Beyond the spec: the default engine, and every engine a task may name in `engine` (task creation, upload completion) with the " +
        "languages it recognises (`language`): PocketSphinx English only; whisper any language its model knows (only `en` with an " +
        "English-only `*.en` model); an OpenAI-compatible endpoint `null`, any. A task naming another engine or language is a 422.",
    },
  });
}
