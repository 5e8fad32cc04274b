import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { writeTinyWhisperModel } from "../support/ggml-whisper-model.ts";
import { choiceOf, recognitionChoice, recordedChoice, type RecognitionOffer } from "../../src/tasks/recognition-choice.ts";
import { ValidationFailedError } from "../../src/core/errors.ts";
import { recognitionOfferOf } from "../../src/transcription/recognition-offer.ts";

const models = mkdtempSync(join(tmpdir(), "scribe-offer-"));
afterAll(() => rmSync(models, { recursive: true, force: true }));
const multilingual = writeTinyWhisperModel(join(models, "ggml-tiny.bin"));
const englishOnly = writeTinyWhisperModel(join(models, "ggml-custom.bin"), { englishOnly: true });
const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: models, ...env }).transcription;

const whisperToo: RecognitionOffer = recognitionOfferOf(
  config({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: multilingual, TRANSCRIPTION_OPENAI_URL: "https://api.example" }),
);

const refusal = (run: () => unknown): Record<string, string[]> => {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationFailedError) return error.errors;
    throw error;
  }
  throw new Error("accepted");
};

describe("the engines a service offers", () => {
  test("given whisper and an endpoint configured, then all three are offered, the default first", () => {
    expect(whisperToo.engines).toEqual(["whisper", "sphinx", "openai"]);
    expect(whisperToo.defaultEngine).toBe("whisper");
  });

  test("given only the defaults, then PocketSphinx alone, English alone", () => {
    const offer = recognitionOfferOf(config({}));
    expect(offer.engines).toEqual(["sphinx"]);
    expect(offer.languagesOf("sphinx")).toEqual(["en"]);
  });

  test("given a WHISPER_MODEL beside the default that is not there, then whisper is not offered (a 422, not a failed task)", () => {
    expect(recognitionOfferOf(config({ WHISPER_MODEL: join(models, "ggml-base.bin") })).engines).toEqual(["sphinx"]);
    expect(recognitionOfferOf(config({ WHISPER_MODEL: multilingual })).engines).toEqual(["sphinx", "whisper"]);
  });

  test("given a whisper model, then its languages are those its own header says: English alone for an English-only one", () => {
    expect(recognitionOfferOf(config({ TRANSCRIPTION_ENGINE: "whisper", WHISPER_MODEL: englishOnly })).languagesOf("whisper")).toEqual(["en"]);
    const languages = whisperToo.languagesOf("whisper")!;
    expect(languages).toContain("de");
    expect(languages).not.toContain("yue"); // large-v3's alone
  });
});

describe("a task's recognition choice", () => {
  test("when the default engine is multilingual, then any language it knows is taken, in lower case", () => {
    expect(recognitionChoice({ language: "DE" }, whisperToo)).toEqual({ engine: null, language: "de", vocabulary: [] });
    expect(refusal(() => recognitionChoice({ language: "xx" }, whisperToo)).language).toEqual(["The whisper engine does not know the language xx."]);
  });

  test("when a language is written otherwise (a three-letter code, upper case, Auto), then it is the same language", () => {
    const sphinxOnly = recognitionOfferOf(config({}));
    expect(recognitionChoice({ language: "ENG" }, sphinxOnly).language).toBe("en");
    expect(recognitionChoice({ language: "Auto" }, sphinxOnly).language).toBeNull();
    expect(recognitionChoice({ language: "deu" }, whisperToo).language).toBe("de");
    expect(refusal(() => recognitionChoice({ language: "deu" }, sphinxOnly)).language).toEqual([
      "The sphinx engine recognises English only, not German; choose another engine for other languages.",
    ]);
  });

  test("when the task names PocketSphinx, then its language is checked against PocketSphinx's, not the default's", () => {
    expect(refusal(() => recognitionChoice({ engine: "sphinx", language: "fr" }, whisperToo)).language![0]).toContain("recognises English only, not French");
  });

  test("when the engine is an endpoint, then the endpoint decides the language", () => {
    expect(recognitionChoice({ engine: "openai", language: "tlh" }, whisperToo).language).toBe("tlh");
  });

  test("when both engine and language are wrong, then both are reported", () => {
    const offer: RecognitionOffer = { defaultEngine: "sphinx", engines: ["sphinx"], languagesOf: () => ["en"] };
    expect(Object.keys(refusal(() => recognitionChoice({ engine: "whisper", language: "de" }, offer)))).toEqual(["engine", "language"]);
  });

  test("then only what was asked is recorded, and an old event reads as no choice", () => {
    expect(recordedChoice({ engine: null, language: null, vocabulary: [] })).toEqual({});
    expect(choiceOf({})).toEqual({ engine: null, language: null, vocabulary: [] });
    const choice = recognitionChoice({ vocabulary: [" a  b ", "A B", "c"] }, whisperToo);
    expect(choiceOf(recordedChoice(choice))).toEqual(choice);
    expect(choice.vocabulary).toEqual(["a b", "c"]);
  });
});
