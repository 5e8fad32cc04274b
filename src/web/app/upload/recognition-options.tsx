import { useEffect, useRef } from "preact/hooks";
import { engineLabel, type EngineName } from "./engine-offer.ts";
import type { RecognitionOptions } from "./use-recognition-options.ts";
import { maxVocabularyEntries, maxVocabularyEntryLength } from "./vocabulary-entries.ts";

type Props = {
  /** Prefixes the fields' ids: two forms of the page show these options. */
  id: string;
  options: RecognitionOptions;
  /** The API's 422 messages by field (`engine`, `language`, `vocabulary`, `vocabulary.3`). */
  errors: Record<string, string[]>;
};

/** The API's messages about `field` and its items. */
const messagesOf = (errors: Record<string, string[]>, field: string) =>
  Object.entries(errors)
    .filter(([key]) => key === field || key.startsWith(`${field}.`))
    .flatMap(([, messages]) => messages);

function FieldError({ id, messages }: { id: string; messages: string[] }) {
  return messages.length === 0 ? null : (
    <p id={id} class="field-error">
      {messages.join(" ")}
    </p>
  );
}

function EngineSelect({ id, options, messages }: { id: string; options: RecognitionOptions; messages: string[] }) {
  const { offer, engine } = options;
  if (!offer || offer.engines.length < 2) return null;
  return (
    <div class="field">
      <label for={`${id}-engine`}>Engine</label>
      <select
        id={`${id}-engine`}
        value={engine ?? offer.default}
        aria-invalid={messages.length > 0 ? "true" : undefined}
        aria-describedby={messages.length > 0 ? `${id}-engine-error` : undefined}
        onChange={(event) => options.chooseEngine(event.currentTarget.value as EngineName)}
      >
        {offer.engines.map(({ name }) => (
          <option key={name} value={name}>
            {engineLabel(name)}
            {name === offer.default ? " (default)" : ""}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-engine-error`} messages={messages} />
    </div>
  );
}

/** Detect, or one of the engine's languages; an engine of one language (PocketSphinx: English) shows it, disabled. */
function LanguageSelect({ id, options, messages }: { id: string; options: RecognitionOptions; messages: string[] }) {
  const { languages, engine } = options;
  if (!engine || languages.length === 0) return null;
  const only = languages.length === 1 ? languages[0] : undefined;
  const hint = `${id}-language-hint`;
  return (
    <div class="field">
      <label for={`${id}-language`}>Language</label>
      <select
        id={`${id}-language`}
        value={only ? only.code : options.language}
        disabled={only !== undefined}
        aria-invalid={messages.length > 0 ? "true" : undefined}
        aria-describedby={[only ? hint : "", messages.length > 0 ? `${id}-language-error` : ""].join(" ").trim() || undefined}
        onChange={(event) => options.chooseLanguage(event.currentTarget.value)}
      >
        {!only && <option value="auto">Detect</option>}
        {languages.map(({ code, name }) => (
          <option key={code} value={code}>
            {name}
          </option>
        ))}
      </select>
      {only && (
        <p id={hint} class="hint">
          {engineLabel(engine)} recognises {only.name} only.
        </p>
      )}
      <FieldError id={`${id}-language-error`} messages={messages} />
    </div>
  );
}

function VocabularyField({ id, options, messages }: { id: string; options: RecognitionOptions; messages: string[] }) {
  const { vocabulary } = options;
  const problems = [...new Set(vocabulary.problem ? [vocabulary.problem, ...messages] : messages)];
  const field = `${id}-vocabulary`;
  return (
    <div class="field">
      <label for={field}>Vocabulary</label>
      <textarea
        id={field}
        rows={3}
        value={options.vocabularyText}
        aria-invalid={problems.length > 0 ? "true" : undefined}
        aria-describedby={`${field}-hint${problems.length > 0 ? ` ${field}-error` : ""}`}
        onInput={(event) => options.setVocabularyText(event.currentTarget.value)}
      />
      <p id={`${field}-hint`} class="hint">
        Names and terms the recording holds, one per line or separated by commas: at most {maxVocabularyEntries}, each at most {maxVocabularyEntryLength}{" "}
        characters. {vocabulary.entries.length > 0 && `${vocabulary.entries.length} of ${maxVocabularyEntries}.`}
      </p>
      <FieldError id={`${field}-error`} messages={problems} />
    </div>
  );
}

/**
 * Engine, Language and Vocabulary under a collapsed "Options" disclosure, which opens by itself when one of them is
 * refused (by the form or by the API), so the message is never hidden.
 */
export function RecognitionOptionsFields({ id, options, errors }: Props) {
  const disclosure = useRef<HTMLDetailsElement>(null);
  const engineMessages = messagesOf(errors, "engine");
  const languageMessages = messagesOf(errors, "language");
  const vocabularyMessages = messagesOf(errors, "vocabulary");
  const refused = engineMessages.length + languageMessages.length + vocabularyMessages.length > 0 || options.vocabulary.problem !== null;
  useEffect(() => {
    if (refused && disclosure.current) disclosure.current.open = true;
  }, [refused]);
  const asked = options.vocabulary.entries.length;
  return (
    <details class="upload-options" ref={disclosure}>
      <summary>
        Options: engine, language, vocabulary{asked > 0 && <span class="muted"> · {asked === 1 ? "1 word or phrase" : `${asked} words or phrases`}</span>}
      </summary>
      <EngineSelect id={id} options={options} messages={engineMessages} />
      <LanguageSelect id={id} options={options} messages={languageMessages} />
      <VocabularyField id={id} options={options} messages={vocabularyMessages} />
    </details>
  );
}
