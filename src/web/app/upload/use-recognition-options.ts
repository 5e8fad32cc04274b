import { useEffect, useState } from "preact/hooks";
import { engineOffer, languagesFor, type EngineName, type EngineOffer } from "./engine-offer.ts";
import { readVocabulary, type VocabularyReading } from "./vocabulary-entries.ts";

/** The fields a task's upload completion or creation takes for its recognition (all optional: the service's defaults). */
export type RecognitionRequest = { engine?: EngineName; language?: string; vocabulary?: string[] };

export type RecognitionOptions = {
  /** Null while it loads, or when it could not be loaded: the form then offers the vocabulary alone. */
  offer: EngineOffer | null;
  /** The engine chosen, or the service's default. */
  engine: EngineName | null;
  chooseEngine(engine: EngineName): void;
  /** `auto` (detect, or the engine's own), or an ISO 639-1 code. */
  language: string;
  chooseLanguage(language: string): void;
  /** The languages the chosen engine offers; one alone (PocketSphinx: English) is shown, not chosen. */
  languages: { code: string; name: string }[];
  vocabularyText: string;
  setVocabularyText(text: string): void;
  vocabulary: VocabularyReading;
  /** What the request carries: only what differs from the service's defaults; null while the vocabulary is refused. */
  request(): RecognitionRequest | null;
};

/** The upload form's Engine, Language and Vocabulary, from what the service offers (GET /api/transcription/engines). */
export function useRecognitionOptions(): RecognitionOptions {
  const [offer, setOffer] = useState<EngineOffer | null>(null);
  const [chosenEngine, setChosenEngine] = useState<EngineName | null>(null);
  const [language, setLanguage] = useState("auto");
  const [vocabularyText, setVocabularyText] = useState("");
  useEffect(() => {
    engineOffer()
      .then(setOffer)
      .catch(() => setOffer(null)); // the service's defaults then, which need no choice
  }, []);

  const engine = chosenEngine ?? offer?.default ?? null;
  const languages = offer && engine ? languagesFor(offer, engine) : [];
  const vocabulary = readVocabulary(vocabularyText);
  const chooseEngine = (next: EngineName) => {
    setChosenEngine(next);
    // A language the new engine does not know would be refused: back to detecting.
    if (offer && !languagesFor(offer, next).some((known) => known.code === language)) setLanguage("auto");
  };
  const request = (): RecognitionRequest | null => {
    if (vocabulary.problem !== null) return null;
    const choosing = languages.length > 1 && language !== "auto";
    return {
      ...(chosenEngine !== null && chosenEngine !== offer?.default ? { engine: chosenEngine } : {}),
      ...(choosing ? { language } : {}),
      ...(vocabulary.entries.length > 0 ? { vocabulary: vocabulary.entries } : {}),
    };
  };
  return { offer, engine, chooseEngine, language, chooseLanguage: setLanguage, languages, vocabularyText, setVocabularyText, vocabulary, request };
}
