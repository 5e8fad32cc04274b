import { t } from "elysia";
import { ValidationFailedError } from "../core/errors.ts";
import { stringEnum } from "../http/openapi/string-enum.ts";

/** The speech recognition engines the service knows (src/transcription/engines); which of them it offers is configured. */
export const engineNames = ["sphinx", "whisper", "openai"] as const;
export type EngineName = (typeof engineNames)[number];

/** The most entries a task's vocabulary holds, and the longest entry. */
export const maxVocabularyEntries = 100;
export const maxVocabularyEntryLength = 100;

/**
 * How a task asks to be recognised: by which engine (null: the service's default), in which language (null: the
 * engine's own, or detected), expecting which words and phrases. Old tasks' events carry none of it.
 */
export type RecognitionChoice = { engine: EngineName | null; language: string | null; vocabulary: string[] };

export const noChoice: RecognitionChoice = { engine: null, language: null, vocabulary: [] };

/**
 * What this service offers, from its configuration: the default engine, every engine a task may name, and the
 * languages each recognises (null: any ISO 639 code, the engine decides, as an OpenAI-compatible endpoint does).
 */
export type RecognitionOffer = {
  defaultEngine: EngineName;
  engines: readonly EngineName[];
  languagesOf(engine: EngineName): readonly string[] | null;
};

// No control characters in a vocabulary entry: they reach a dictionary file, a language model and a prompt.
const entry = t.String({ minLength: 1, maxLength: maxVocabularyEntryLength, pattern: "^[^\\u0000-\\u001f\\u007f]*$" });

/** An ISO 639-1 or 639-2 code, or `auto`, in any case. */
export const languagePattern = "^([A-Za-z]{2,3}|[Aa][Uu][Tt][Oo])$";

/** The request fields of a task's recognition, on task creation and upload completion (typebox, so the OpenAPI document has them). */
export const recognitionFields = {
  engine: t.Optional(
    stringEnum(engineNames, {
      description: "The speech recognition engine, one of those this service offers (GET /v1/models lists them); default: the service's.",
    }),
  ),
  language: t.Optional(
    t.String({
      maxLength: 16,
      pattern: languagePattern,
      description: "The spoken language as an ISO 639-1 code (`en`, `de`), or `auto` to detect it. PocketSphinx recognises English only.",
    }),
  ),
  vocabulary: t.Optional(
    t.Array(entry, {
      maxItems: maxVocabularyEntries,
      description:
        `Up to ${maxVocabularyEntries} words or phrases the media holds (names, terms), each at most ${maxVocabularyEntryLength} characters: ` +
        "PocketSphinx adds and prefers them, whisper and OpenAI get them as a prompt.",
    }),
  ),
};

export type RecognitionFields = { engine?: EngineName; language?: string; vocabulary?: string[] };

const languageNames = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

/** A language's English name ("English" for `en`), or its code when it names none. */
export function languageName(code: string): string {
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code; // not a well-formed language tag
  }
}

/** The language an engine is asked for: its shortest ISO 639 code (`eng` and `EN` are `en`), `auto` (any case) as none. */
function languageOf(language: string | undefined): string | null {
  const code = language?.toLowerCase() ?? null;
  if (code === null || code === "auto") return null;
  try {
    return Intl.getCanonicalLocales(code)[0] ?? code;
  } catch {
    return code; // not a well-formed tag: no engine knows it, which the check below says
  }
}

/** Entries trimmed, blank and repeated ones (ignoring case) dropped, in the order given. */
function vocabularyOf(entries: readonly string[] | undefined): string[] {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const raw of entries ?? []) {
    const text = raw.trim().replace(/\s+/g, " ");
    if (text === "" || seen.has(text.toLowerCase())) continue;
    seen.add(text.toLowerCase());
    kept.push(text);
  }
  return kept;
}

/** The task's choice, checked against what the service offers: 422 for an engine it does not offer or a language the engine cannot recognise. */
export function recognitionChoice(fields: RecognitionFields, offer: RecognitionOffer): RecognitionChoice {
  const errors: Record<string, string[]> = {};
  const engine = fields.engine ?? null;
  if (engine !== null && !offer.engines.includes(engine))
    errors.engine = [`The engine ${engine} is not offered by this service; it offers ${offer.engines.join(", ")}.`];
  const language = languageOf(fields.language);
  const recognising = engine !== null && offer.engines.includes(engine) ? engine : offer.defaultEngine;
  const languages = offer.languagesOf(recognising);
  if (language !== null && languages !== null && !languages.includes(language)) {
    errors.language = [
      languages.length === 1
        ? `The ${recognising} engine recognises ${languageName(languages[0]!)} only, not ${languageName(language)}; choose another engine for other languages.`
        : `The ${recognising} engine does not know the language ${language}.`,
    ];
  }
  if (Object.keys(errors).length > 0) throw new ValidationFailedError(errors);
  return { engine, language, vocabulary: vocabularyOf(fields.vocabulary) };
}

export type RecordedChoice = { engine?: EngineName; language?: string; vocabulary?: string[] };

/** A choice as events carry it: only what was asked, so tasks that ask nothing keep their events as they were. */
export function recordedChoice(choice: RecognitionChoice): RecordedChoice {
  return {
    ...(choice.engine !== null ? { engine: choice.engine } : {}),
    ...(choice.language !== null ? { language: choice.language } : {}),
    ...(choice.vocabulary.length > 0 ? { vocabulary: choice.vocabulary } : {}),
  };
}

/** The choice an event recorded (none on events written before tasks could choose). */
export const choiceOf = (data: RecordedChoice): RecognitionChoice => ({
  engine: data.engine ?? null,
  language: data.language ?? null,
  vocabulary: data.vocabulary ?? [],
});
