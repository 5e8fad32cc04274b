import type { CueLimits } from "./cue-limits.ts";
import { displayWidth, type TimedWord } from "./timed-words.ts";

type Item = { text: string; width: number; glued: boolean };

/** The number of lines `fillFromEnd` would make, without making them. */
function linesFromEnd(items: readonly Item[], width: number): number {
  let lines = 1;
  let used = items[items.length - 1]!.width;
  for (let k = items.length - 2; k >= 0; k--) {
    const join = items[k + 1]!.glued ? 0 : 1;
    if (used + join + items[k]!.width > width) lines++, (used = items[k]!.width);
    else used += join + items[k]!.width;
  }
  return lines;
}

/** Lines filled from the last item back, none wider than `width` (an item wider than that alone): the fewest lines, the bottom fullest. */
function fillFromEnd(items: readonly Item[], width: number): Item[][] {
  const lines: Item[][] = [];
  let line: Item[] = [items[items.length - 1]!];
  let used = line[0]!.width;
  for (let k = items.length - 2; k >= 0; k--) {
    const join = items[k + 1]!.glued ? 0 : 1;
    if (used + join + items[k]!.width > width) {
      lines.push(line.reverse());
      line = [items[k]!];
      used = items[k]!.width;
    } else {
      line.push(items[k]!);
      used += join + items[k]!.width;
    }
  }
  lines.push(line.reverse());
  return lines.reverse();
}

function lineText(line: readonly Item[]): string {
  let text = line[0]!.text;
  for (let k = 1; k < line.length; k++) text += line[k]!.glued ? line[k]!.text : ` ${line[k]!.text}`;
  return text;
}

/**
 * As few lines as fit in `maxLineLength`, then as even as they can be: the narrowest width that still takes no more
 * lines, filled from the bottom, so a two-line cue has its longer line below (the pyramid viewers read fastest).
 */
function balanced(items: readonly Item[], maxLineLength: number, maxLines: number): string[] | null {
  if (items.length === 0) return [];
  const total = items.reduce((sum, item, k) => sum + item.width + (k > 0 && !item.glued ? 1 : 0), 0);
  if (total <= maxLineLength) return [lineText(items)];
  const fewest = linesFromEnd(items, maxLineLength);
  if (fewest > maxLines) return null;
  let low = Math.max(1, Math.ceil(total / fewest));
  let high = maxLineLength;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (linesFromEnd(items, middle) <= fewest) high = middle;
    else low = middle + 1;
  }
  return fillFromEnd(items, high).map(lineText);
}

/**
 * A cue's lines: its words, after the speaker's label when it has one (cut to a line's width before: subtitle-cues.ts),
 * which shares the first line with the words that fit beside it. Null when they take more than `maxLines` lines.
 */
export function layOutLines(words: readonly TimedWord[], label: string | null, { maxLineLength, maxLines }: CueLimits): string[] | null {
  const items: Item[] = words.map(({ text, width, glued }) => ({ text, width, glued }));
  if (label !== null) items.unshift({ text: label, width: displayWidth(label), glued: false });
  return balanced(items, maxLineLength, maxLines);
}
