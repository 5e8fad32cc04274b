import { cleanText } from "../exports/formats/text.ts";

/**
 * Where things go in the archive. Every path is made here from names the server chose or cleaned: a task's name or
 * a file's can hold anything (`../`, `C:\`, controls), and an unzip must never be led outside its folder by one.
 */

/** A name that file systems take: without `/ \ : * ? " < > |` and controls, trimmed of dots and spaces, cut to `longest` characters. */
export function safeName(name: string, longest: number): string {
  const cleaned = cleanText(name)
    .replace(/[\n\t]/g, " ")
    .replace(/[/\\:*?"<>|]/g, "_")
    .replace(/^[\s.]+|[\s.]+$/g, "");
  return [...cleaned]
    .slice(0, longest)
    .join("")
    .replace(/[\s.]+$/, "");
}

/** A task's folder: its id first (unique, and no reserved name such as `CON` can come of it), then its name. */
export function taskFolder(task: { id: number; name: string }): string {
  const name = safeName(task.name, 60);
  return `tasks/${task.id}${name ? ` ${name}` : ""}`;
}

/**
 * A media file's name in its task's folder: the last part of its blob key, which the server made of the original
 * name with only `[A-Za-z0-9._-]` (src/blobs/port.ts); numbered when a task has several (a link fetched again).
 */
export function mediaPath(folder: string, key: string, index: number): string {
  const name = safeName(key.slice(key.lastIndexOf("/") + 1), 120) || "media";
  return `${folder}/media/${index > 0 ? `${index + 1}-` : ""}${name}`;
}

/** The archive's own name: `scribe-data-<UTC date>.zip`. */
export const archiveName = (now: Date) => `scribe-data-${now.toISOString().slice(0, 10)}.zip`;
