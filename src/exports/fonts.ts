import { existsSync, readFileSync } from "node:fs";
import fontkit from "@pdf-lib/fontkit";
import { readSetting } from "../config/read-settings.ts";
import { exportSettings } from "./settings.ts";

/**
 * Fonts for the PDF export, from Debian packages (scripts/setup.sh and the Dockerfile install them):
 * - primary: WenQuanYi Micro Hei (`fonts-wqy-microhei`): Latin, Cyrillic, Greek, CJK ideographs, kana
 *   and Hangul in one 5 MB TrueType font, so Chinese, Japanese and Korean render;
 * - fallback: DejaVu Sans (`fonts-dejavu-core`): Arabic, Hebrew and many symbols the primary lacks.
 * A character neither covers (most emoji) is left out of the PDF rather than drawn as a box.
 * `EXPORT_FONT` / `EXPORT_FALLBACK_FONT` name other files (TTF, OTF, or a TTC whose first face is used).
 */
export const defaultPrimaryFont = exportSettings.EXPORT_FONT.fallback;

export type LoadedFont = {
  /** A standalone TrueType/OpenType file (a face taken out of its collection), for pdf-lib to embed and subset. */
  bytes: Uint8Array;
  /** Advance width of a code point at size 1, or null when the font has no glyph for it. */
  advance(codePoint: number): number | null;
};

export type ExportFonts = { primary: LoadedFont; fallback: LoadedFont | null };

let cached: ExportFonts | null = null;

/** Reads the fonts once per process (a few milliseconds each time after that: nothing). */
export function exportFonts(env: Record<string, string | undefined> = process.env): ExportFonts {
  if (cached) return cached;
  // Read here, not from Config: this runs on the rendering thread, which shares the environment only.
  const primaryPath = readSetting(exportSettings, env, "EXPORT_FONT");
  if (!existsSync(primaryPath)) {
    throw new Error(`PDF export font ${primaryPath} is missing: install the Debian package fonts-wqy-microhei (scripts/setup.sh does) or set EXPORT_FONT`);
  }
  const fallbackPath = readSetting(exportSettings, env, "EXPORT_FALLBACK_FONT");
  cached = { primary: loadFont(primaryPath), fallback: existsSync(fallbackPath) ? loadFont(fallbackPath) : null };
  return cached;
}

export function loadFont(path: string): LoadedFont {
  const file = new Uint8Array(readFileSync(path));
  const bytes = isCollection(file) ? extractFace(file, 0) : file;
  const font = fontkit.create(bytes as Buffer);
  const scale = 1 / font.unitsPerEm;
  const widths = new Map<number, number | null>();
  return {
    bytes,
    advance(codePoint) {
      let width = widths.get(codePoint);
      if (width === undefined) {
        width = font.hasGlyphForCodePoint(codePoint) ? font.glyphForCodePoint(codePoint).advanceWidth * scale : null;
        widths.set(codePoint, width);
      }
      return width;
    },
  };
}

const isCollection = (bytes: Uint8Array) => bytes.length > 12 && String.fromCharCode(...bytes.subarray(0, 4)) === "ttcf";

/**
 * One face of a TrueType Collection as a standalone font file: its table directory with the tables
 * it points at copied after it (4-byte aligned) and the offsets rewritten. Tables are copied as they
 * are, so their checksums still hold. pdf-lib embeds standalone fonts only.
 */
export function extractFace(collection: Uint8Array, index: number): Uint8Array {
  const view = new DataView(collection.buffer, collection.byteOffset, collection.byteLength);
  const faces = view.getUint32(8);
  if (index >= faces) throw new RangeError(`the collection has ${faces} faces, not ${index + 1}`);
  const directory = view.getUint32(12 + 4 * index);
  const tableCount = view.getUint16(directory + 4);
  const headerSize = 12 + 16 * tableCount;
  const tables = Array.from({ length: tableCount }, (_, i) => {
    const record = directory + 12 + 16 * i;
    return { record, offset: view.getUint32(record + 8), length: view.getUint32(record + 12) };
  });
  const size = tables.reduce((total, table) => total + align4(table.length), headerSize);
  const out = new Uint8Array(size);
  const outView = new DataView(out.buffer);
  out.set(collection.subarray(directory, directory + 12), 0);
  let cursor = headerSize;
  tables.forEach((table, i) => {
    out.set(collection.subarray(table.record, table.record + 16), 12 + 16 * i);
    outView.setUint32(12 + 16 * i + 8, cursor);
    out.set(collection.subarray(table.offset, table.offset + table.length), cursor);
    cursor += align4(table.length);
  });
  return out;
}

const align4 = (n: number) => (n + 3) & ~3;
