import { describe, expect, test } from "bun:test";
import { engineOfModel, languageName, servedLanguage, servedModel, servedModels } from "../../src/openai-compat/models.ts";
import { OpenAiError } from "../../src/http/openai-errors.ts";
import { loadConfig } from "../../src/config.ts";
import { recognitionOfferOf } from "../../src/transcription/recognition-offer.ts";

const sphinxOnly = loadConfig({ DATA_DIR: "/tmp/scribe-models-unit" }).transcription;
const withOpenAi = loadConfig({
  DATA_DIR: "/tmp/scribe-models-unit",
  TRANSCRIPTION_OPENAI_URL: "http://127.0.0.1:9/v1",
  TRANSCRIPTION_LANGUAGE: "de",
}).transcription;

const refusal = (run: () => unknown): OpenAiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof OpenAiError) return error;
    throw error;
  }
  throw new Error("not refused");
};

describe("model names and engines", () => {
  test("OpenAI's transcription models run on the default engine, an offered engine's name on that engine", () => {
    const offer = recognitionOfferOf(withOpenAi);
    for (const model of ["whisper-1", "gpt-4o-transcribe", "gpt-4o-mini-transcribe", "gpt-4o-mini-transcribe-2025-12-15", "gpt-4o-transcribe-diarize"])
      expect(engineOfModel(model, offer)).toBeNull();
    expect(engineOfModel("sphinx", offer)).toBe("sphinx");
    expect(engineOfModel("openai", offer)).toBe("openai");
  });

  test("anything else, an engine not offered and names of Object's own members included, is 404 model_not_found", () => {
    const offer = recognitionOfferOf(sphinxOnly);
    for (const model of ["whisper", "openai", "gpt-4", "Whisper-1", "__proto__", "constructor", "toString", "whisper-1 ", "sphinx\u0000"]) {
      const error = refusal(() => engineOfModel(model, offer));
      expect({ status: error.status, code: error.code, param: error.param }).toEqual({ status: 404, code: "model_not_found", param: "model" });
      expect(error.message).toContain(JSON.stringify(model));
      expect(error.message).toContain("whisper-1, gpt-4o-transcribe");
    }
  });

  test("the list: OpenAI's names, then every offered engine, the default first; one by its id", () => {
    expect(servedModels(recognitionOfferOf(sphinxOnly)).map((m) => m.id)).toEqual([
      "whisper-1",
      "gpt-4o-transcribe",
      "gpt-4o-mini-transcribe",
      "gpt-4o-mini-transcribe-2025-12-15",
      "gpt-4o-transcribe-diarize",
      "sphinx",
    ]);
    const offer = recognitionOfferOf({ ...withOpenAi, engine: "openai" });
    expect(
      servedModels(offer)
        .map((m) => m.id)
        .slice(-2),
    ).toEqual(["openai", "sphinx"]);
    expect(servedModel("openai", offer)).toMatchObject({ id: "openai", object: "model", owned_by: "scribe" });
    expect(refusal(() => servedModel("__proto__", offer)).status).toBe(404);
  });
});

describe("the language verbose_json names", () => {
  test("the one asked for, else the engine's only one, else the configured one, else unknown", () => {
    const offer = recognitionOfferOf(withOpenAi);
    expect(servedLanguage(withOpenAi, offer, null, null)).toBe("english");
    expect(servedLanguage(withOpenAi, offer, "openai", "fr")).toBe("french");
    expect(servedLanguage(withOpenAi, offer, "openai", null)).toBe("german");
    expect(servedLanguage({ ...withOpenAi, openai: { ...withOpenAi.openai!, language: null } }, offer, "openai", null)).toBe("unknown");
  });

  test("codes become OpenAI's lower-case English names; a code no one knows stays itself", () => {
    expect(["en", "de", "zh", "yue", "qqq", "_x"].map(languageName)).toEqual(["english", "german", "chinese", "cantonese", "qqq", "_x"]);
  });
});
