import { unnamable } from "../http/names.ts";

/**
 * Folder names are at most 14 columns wide, where a wide (CJK, full-width) character takes two, so
 * "7 Chinese characters" fit as the spec says.
 */
export const maxFolderNameWidth = 14;

/** The limit in words, as a person is told it: said whenever a name is too long, however it was measured. */
export const folderNameTooLong = "At most 14 characters, or 7 Chinese characters.";

/** The name that means "in no folder": the list's filter and a bulk move's target take it, and no folder may. */
export const uncategorized = "Uncategorized";

const wideRanges: [number, number][] = [
  [0x1100, 0x115f],
  [0x2e80, 0x303e],
  [0x3041, 0x33ff],
  [0x3400, 0x4dbf],
  [0x4e00, 0x9fff],
  [0xa000, 0xa4cf],
  [0xa960, 0xa97f],
  [0xac00, 0xd7a3],
  [0xf900, 0xfaff],
  [0xfe10, 0xfe19],
  [0xfe30, 0xfe6f],
  [0xff00, 0xff60],
  [0xffe0, 0xffe6],
  [0x1f300, 0x1f64f],
  [0x1f900, 0x1f9ff],
  [0x20000, 0x2fffd],
  [0x30000, 0x3fffd],
];

export function displayWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    width += wideRanges.some(([from, to]) => code >= from && code <= to) ? 2 : 1;
  }
  return width;
}

/** The problem with a folder name, or null when it is fine. */
export function folderNameProblem(name: string): string | null {
  if (name.trim().length === 0) return "The name field is required.";
  if (name !== name.trim()) return "The name must not start or end with spaces.";
  if (new RegExp(unnamable.source).test(name)) return "The name must not contain control characters or text-direction controls.";
  if (name === uncategorized || name === "all") return `The name "${name}" is reserved.`;
  if (displayWidth(name) > maxFolderNameWidth) return folderNameTooLong;
  return null;
}

/** Folder names are unique per user ignoring case (and Unicode composition): the key they compare by. */
export function folderKey(name: string): string {
  return name.normalize("NFC").toLowerCase();
}
