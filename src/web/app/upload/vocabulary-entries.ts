/* A task's vocabulary as the upload form takes it. Nothing here uses the DOM, so unit tests import it as it is. */

/** The API's limits (src/tasks/recognition-choice.ts): the form refuses more before anything is sent. */
export const maxVocabularyEntries = 100;
export const maxVocabularyEntryLength = 100;

export type VocabularyReading = { entries: string[]; problem: string | null };

// Control characters never reach the API (it refuses them); a tab or a stray one is taken as a space.
const controls = /[\u0000-\u001f\u007f]/g;

/**
 * The entries of the Vocabulary field: one word or phrase per line, or separated by commas; trimmed, blank ones and
 * repeats (ignoring case) left out, as the API would; with what is wrong in words, or null.
 */
export function readVocabulary(text: string): VocabularyReading {
  const seen = new Set<string>();
  const entries: string[] = [];
  for (const line of text.split(/[\n\r,]+/)) {
    const entry = line.replace(controls, " ").replace(/\s+/g, " ").trim();
    if (entry === "" || seen.has(entry.toLowerCase())) continue;
    seen.add(entry.toLowerCase());
    entries.push(entry);
  }
  return { entries, problem: vocabularyProblem(entries) };
}

function vocabularyProblem(entries: readonly string[]): string | null {
  if (entries.length > maxVocabularyEntries)
    return `The vocabulary has ${entries.length} entries; at most ${maxVocabularyEntries} can be given. Keep the names and terms that matter most.`;
  const long = entries.find((entry) => entry.length > maxVocabularyEntryLength);
  if (long !== undefined)
    return `“${long.slice(0, 30)}…” is ${long.length} characters long; each word or phrase can be at most ${maxVocabularyEntryLength} characters.`;
  return null;
}
