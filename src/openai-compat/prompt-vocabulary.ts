/**
 * OpenAI's `prompt` as a task's vocabulary (src/tasks/recognition-choice.ts): the words and phrases the media is
 * expected to hold. Whisper and an OpenAI endpoint get the entries back, joined, as their prompt; PocketSphinx adds
 * the words it lacks to its dictionary. A prompt is free text, so it is cut where a list would be: at commas,
 * semicolons, line breaks and sentence ends when it has any ("Anja Müller, Kubernetes, Helm"), else at spaces
 * ("Anja Kubernetes Helm").
 */
import { maxVocabularyEntries, maxVocabularyEntryLength } from "../tasks/recognition-choice.ts";

/**
 * Where phrases part: commas and semicolons (with their CJK forms), a sentence's end before a space, and line breaks
 * or any other control character (which has no place in a dictionary file or a prompt).
 */
const phraseBreak = /[,;，、；]|[.!?。！？](?=\s|$)|[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u2028\u2029]/u;
const phraseBreaks = new RegExp(phraseBreak.source, "gu");
// Dropped: bidirectional controls (an entry would read differently from what it is), U+FFFD (what a lone surrogate became)
// and double quotes, which quote a term in prose and are never part of a word.
const dropped = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\ufffd"“”«»]/gu;
// Quotes, brackets and sentence marks around an entry are the prompt's, not the word's ("Kubernetes." → "Kubernetes"); C++ and node.js keep theirs.
const edgeMark = /[\s"'“”‘’«»()[\]{}.,;:!?…]/u;

/**
 * An entry without its edge marks and with single spaces. Trimmed by index, not by a `[...]+$` pattern, which
 * backtracks over every run of marks inside a long entry (quadratic in a 10,000-character prompt).
 */
function tidy(entry: string): string {
  const chars = [...entry];
  let from = 0;
  let to = chars.length;
  while (from < to && edgeMark.test(chars[from]!)) from++;
  while (to > from && edgeMark.test(chars[to - 1]!)) to--;
  return chars.slice(from, to).join("").replace(/\s+/gu, " ");
}

/** An entry within the length a vocabulary takes: a longer phrase gives its words, a longer word is dropped (nothing in it to learn). */
function fitting(entry: string): string[] {
  if (entry.length <= maxVocabularyEntryLength) return [entry];
  return entry
    .split(" ")
    .map(tidy)
    .filter((word) => word.length <= maxVocabularyEntryLength);
}

/** The vocabulary a prompt gives: at most 100 entries of at most 100 characters, in the prompt's order, repeats (ignoring case) once. */
export function vocabularyOfPrompt(prompt: string | undefined): string[] {
  if (prompt === undefined) return [];
  const text = prompt.toWellFormed().replace(dropped, "");
  const parts = phraseBreak.test(text) ? text.split(phraseBreaks) : text.split(/\s+/u);
  const seen = new Set<string>();
  const entries: string[] = [];
  for (const entry of parts.map(tidy).flatMap(fitting)) {
    const key = entry.toLowerCase();
    if (entry === "" || seen.has(key)) continue;
    seen.add(key);
    entries.push(entry);
    if (entries.length === maxVocabularyEntries) break;
  }
  return entries;
}
