import { describe, expect, test } from "bun:test";
import { choiceOf, recognitionChoice, recordedChoice, type RecognitionOffer } from "../../src/tasks/recognition-choice.ts";
import { ValidationFailedError } from "../../src/core/errors.ts";
import { recognitionOfferOf } from "../../src/transcription/recognition-offer.ts";

const whisperToo: RecognitionOffer = recognitionOfferOf({
  engine: "whisper",
  whisper: { model: "/data/models/whisper/ggml-base.bin", accelerator: "none", language: null, threads: 1 },
  openai: { url: "https://api.example", apiKey: null, model: "whisper-1", language: null },
});

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
    const offer = recognitionOfferOf({ engine: "sphinx", whisper: { model: null, accelerator: "none", language: null, threads: 1 }, openai: null });
    expect(offer.engines).toEqual(["sphinx"]);
    expect(offer.languagesOf("sphinx")).toEqual(["en"]);
  });

  test("given an English-only whisper model (*.en), then whisper takes English alone", () => {
    const offer = recognitionOfferOf({
      engine: "whisper",
      whisper: { model: "/m/ggml-base.en.bin", accelerator: "none", language: null, threads: 1 },
      openai: null,
    });
    expect(offer.languagesOf("whisper")).toEqual(["en"]);
  });
});

describe("a task's recognition choice", () => {
  test("when the default engine is multilingual, then any language it knows is taken, in lower case", () => {
    expect(recognitionChoice({ language: "DE" }, whisperToo)).toEqual({ engine: null, language: "de", vocabulary: [] });
    expect(refusal(() => recognitionChoice({ language: "xx" }, whisperToo)).language).toEqual(["The whisper engine does not know the language xx."]);
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
