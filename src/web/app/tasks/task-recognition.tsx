import type { components } from "../api.ts";
import { engineLabel, languageName } from "../upload/engine-offer.ts";

type Task = components["schemas"]["Task"];

/**
 * What the task asked of recognition (engine, language, vocabulary), and whether it was transcribed live, on its page;
 * nothing for a task that asked nothing (the service's defaults). A detail from a service without these fields reads
 * as one that asked nothing.
 */
export function TaskRecognition({ task }: { task: Partial<Pick<Task, "engine" | "language" | "vocabulary" | "origin">> }) {
  const { engine = null, language = null, vocabulary = [], origin = null } = task;
  if (engine === null && language === null && vocabulary.length === 0 && origin === null) return null;
  return (
    <dl class="task-recognition muted">
      {origin === "live" && (
        <div>
          <dt>Transcribed</dt>
          <dd>Live, as it was spoken</dd>
        </div>
      )}
      {engine !== null && (
        <div>
          <dt>Engine</dt>
          <dd>{engineLabel(engine)}</dd>
        </div>
      )}
      {language !== null && (
        <div>
          <dt>Language</dt>
          <dd>{languageName(language)}</dd>
        </div>
      )}
      {vocabulary.length > 0 && (
        <div>
          <dt>Vocabulary</dt>
          <dd>{vocabulary.join(", ")}</dd>
        </div>
      )}
    </dl>
  );
}
