import type { LoadedFont } from "./fonts.ts";

/**
 * Line breaking for the PDF: text is cut into break units (a word with its trailing spaces, or one
 * CJK character: Chinese and Japanese break between any two characters), measured with the fonts'
 * advance widths, and packed into lines; a unit wider than a line (a 10,000-character word) is cut by
 * character. Each character is drawn with the first font that has it; one neither has is dropped.
 */
export type Style = { color: "text" | "muted" | "accent" };
export type Span = { text: string; style: Style };
export type Piece = { text: string; style: Style; font: 0 | 1; width: number };
export type Line = { pieces: Piece[]; width: number };

/** Chinese and Japanese characters (ideographs, kana, CJK punctuation, full-width forms): each is a break unit of its own. */
const cjk = String.raw`\u2e80-\u2fff\u3000-\u9fff\uf900-\ufaff\uff00-\uffef\u{20000}-\u{3ffff}`;
const breakUnits = new RegExp(String.raw`[${cjk}]\s*|[^\s${cjk}]+\s*|\s+`, "gu");

export class Measure {
  constructor(private readonly fonts: [LoadedFont, LoadedFont | null]) {}

  /** Splits text into runs that one font draws: whitespace joins the run it sits in. */
  runs(text: string, style: Style, size: number): Piece[] {
    const pieces: Piece[] = [];
    let current: Piece | null = null;
    for (const char of text) {
      const cp = char.codePointAt(0)!;
      const isSpace = char === " ";
      let font: 0 | 1 | null;
      let advance: number | null;
      if (isSpace && current && this.fonts[current.font]!.advance(cp) !== null) {
        font = current.font;
        advance = this.fonts[font]!.advance(cp);
      } else if ((advance = this.fonts[0].advance(cp)) !== null) font = 0;
      else if (this.fonts[1] && (advance = this.fonts[1].advance(cp)) !== null) font = 1;
      else continue;
      if (!current || current.font !== font) {
        current = { text: "", style, font, width: 0 };
        pieces.push(current);
      }
      current.text += char;
      current.width += advance! * size;
    }
    return pieces;
  }

  /** Lays spans out in lines of at most `maxWidth` points at `size`. */
  wrap(spans: Span[], size: number, maxWidth: number): Line[] {
    const lines: Line[] = [];
    let line: Line = { pieces: [], width: 0 };
    const push = () => {
      trimEnd(line);
      if (line.pieces.length > 0) lines.push(line);
      line = { pieces: [], width: 0 };
    };
    for (const span of spans) {
      for (const unit of span.text.match(breakUnits) ?? []) {
        const pieces = this.runs(unit, span.style, size);
        const width = pieces.reduce((w, p) => w + p.width, 0);
        const visible = width - trailingSpace(pieces, size, this.fonts);
        if (line.width + visible > maxWidth && line.pieces.length > 0) push();
        if (line.pieces.length === 0 && /^\s+$/.test(unit)) continue;
        if (visible > maxWidth) {
          // Too wide for any line: cut it by character.
          for (const char of unit) {
            for (const piece of this.runs(char, span.style, size)) {
              if (line.width + piece.width > maxWidth && line.pieces.length > 0) push();
              append(line, piece);
            }
          }
          continue;
        }
        for (const piece of pieces) append(line, piece);
      }
    }
    push();
    return lines;
  }
}

function append(line: Line, piece: Piece): void {
  const last = line.pieces[line.pieces.length - 1];
  if (last && last.font === piece.font && last.style === piece.style) {
    last.text += piece.text;
    last.width += piece.width;
  } else line.pieces.push({ ...piece });
  line.width += piece.width;
}

function trailingSpace(pieces: Piece[], size: number, fonts: [LoadedFont, LoadedFont | null]): number {
  const last = pieces[pieces.length - 1];
  if (!last) return 0;
  const spaces = last.text.length - last.text.trimEnd().length;
  return spaces * (fonts[last.font]!.advance(32) ?? 0) * size;
}

/** Trailing spaces are not drawn; the width no longer matters once a line is closed. */
function trimEnd(line: Line): void {
  const last = line.pieces[line.pieces.length - 1];
  if (!last) return;
  last.text = last.text.trimEnd();
  if (last.text.length === 0) line.pieces.pop();
}
