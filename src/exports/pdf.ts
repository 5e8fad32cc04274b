import { CustomFontEmbedder, PDFDocument, rgb, type PDFFont, type PDFPage, type RGB } from "pdf-lib";
import * as fontkit from "@pdf-lib/fontkit";
import { exportFonts, type ExportFonts } from "./fonts.ts";
import { Measure, type Line, type Span, type Style } from "./pdf-layout.ts";
import { documentDate, documentDuration, type ExportDocument } from "./document.ts";
import { cleanText, shortClock, speakerLabel } from "./formats/text.ts";

const page = { width: 595.28, height: 841.89, margin: 50 }; // A4, in points
const body = { size: 10, leading: 14 };
const timeColumn = 52;
const colors: Record<Style["color"], RGB> = { text: rgb(0.1, 0.1, 0.1), muted: rgb(0.45, 0.45, 0.45), accent: rgb(0.05, 0.3, 0.6) };
const style = { text: { color: "text" }, muted: { color: "muted" }, accent: { color: "accent" } } as const satisfies Record<string, Style>;

/**
 * The transcript as a PDF (pdf-lib): the task's name, date, duration and summary, then each segment
 * with its start time in a left column and its speaker before the text. Fonts are embedded as subsets
 * (only the glyphs used), so a CJK font of 5 MB adds tens of kilobytes.
 */
export async function renderPdf(source: ExportDocument, fonts: ExportFonts = exportFonts()): Promise<Uint8Array> {
  const pdf = await PDFDocument.create();
  pdf.registerFontkit(fontkit);
  const title = cleanText(source.name).replace(/\s+/g, " ");
  pdf.setTitle(title, { showInWindowTitleBar: true });
  pdf.setCreator("Scribe");
  pdf.setProducer("Scribe (pdf-lib)");
  const embedded: [PDFFont, PDFFont | null] = [
    withoutShaping(await pdf.embedFont(fonts.primary.bytes, { subset: true })),
    fonts.fallback ? await pdf.embedFont(fonts.fallback.bytes, { subset: true }) : null,
  ];
  const writer = new Writer(pdf, embedded, new Measure([fonts.primary, fonts.fallback]));

  writer.paragraph([{ text: title, style: style.text }], { size: 18, leading: 24 });
  writer.gap(4);
  writer.paragraph(
    [
      {
        text: `${documentDate(source.createdAt)}  ·  Duration ${documentDuration(source.durationSeconds)}  ·  ${source.segments.length} segments`,
        style: style.muted,
      },
    ],
    body,
  );
  if (source.summary && cleanText(source.summary).trim()) {
    writer.gap(14);
    writer.paragraph([{ text: "Summary", style: style.text }], { size: 13, leading: 18 });
    for (const paragraph of cleanText(source.summary).split(/\n+/)) {
      if (paragraph.trim()) writer.paragraph([{ text: paragraph, style: style.text }], body);
    }
  }
  writer.gap(14);
  writer.paragraph([{ text: "Transcript", style: style.text }], { size: 13, leading: 18 });
  writer.gap(4);
  for (const segment of source.segments) {
    const speaker = speakerLabel(segment.speaker);
    const spans: Span[] = speaker ? [{ text: `${speaker}: `, style: style.accent }] : [];
    spans.push({ text: cleanText(segment.text).replace(/\s+/g, " "), style: style.text });
    writer.segment(shortClock(segment.start), spans);
  }
  writer.footers(title);
  return pdf.save();
}

/**
 * The primary font draws Latin, Cyrillic and CJK, which need no OpenType shaping, and fontkit's layout
 * (run for every drawText) costs more than the rest of the PDF together; so its glyphs come straight
 * from the cmap. Scripts that need shaping (Arabic, Hebrew) are drawn with the fallback font, which
 * keeps fontkit's full layout (joining forms, right-to-left order).
 */
function withoutShaping(font: PDFFont): PDFFont {
  // pdf-lib keeps the embedder private: read by name, and trusted only once it is the class that holds a fontkit font.
  const embedder: unknown = Reflect.get(font, "embedder");
  if (!(embedder instanceof CustomFontEmbedder)) return font;
  const fontkitFont = embedder.font;
  // Only `glyphs` is read from a layout when pdf-lib encodes text, so the run is that alone.
  const layout = (text: string) => ({ glyphs: Array.from(text, (char) => fontkitFont.glyphForCodePoint(char.codePointAt(0)!)) });
  Object.assign(fontkitFont, { layout });
  return font;
}

type Size = { size: number; leading: number };

class Writer {
  private page: PDFPage;
  private y = 0;

  constructor(
    private readonly pdf: PDFDocument,
    private readonly fonts: [PDFFont, PDFFont | null],
    private readonly measure: Measure,
  ) {
    this.page = this.newPage();
  }

  private newPage(): PDFPage {
    this.page = this.pdf.addPage([page.width, page.height]);
    this.y = page.height - page.margin;
    return this.page;
  }

  private room(height: number): void {
    if (this.y - height < page.margin + 20) this.newPage();
  }

  gap(points: number): void {
    this.y -= points;
  }

  paragraph(spans: Span[], size: Size, indent = 0): void {
    for (const line of this.measure.wrap(spans, size.size, page.width - 2 * page.margin - indent)) {
      this.room(size.leading);
      this.y -= size.leading;
      this.draw(line, page.margin + indent, size.size);
    }
  }

  /** A segment: its time in the left column, on the line where its text starts. */
  segment(time: string, spans: Span[]): void {
    const lines = this.measure.wrap(spans, body.size, page.width - 2 * page.margin - timeColumn);
    lines.forEach((line, i) => {
      this.room(body.leading);
      this.y -= body.leading;
      if (i === 0) this.draw({ pieces: this.measure.runs(time, style.muted, body.size), width: 0 }, page.margin, body.size);
      this.draw(line, page.margin + timeColumn, body.size);
    });
    this.y -= 3;
  }

  private draw(line: Line, x: number, size: number): void {
    for (const piece of line.pieces) {
      const font = this.fonts[piece.font]!;
      this.page.drawText(piece.text, { x, y: this.y + 3, size, font, color: colors[piece.style.color] });
      // Fallback runs are shaped (Arabic joins, narrowing words), so their drawn width is measured for real.
      x += piece.font === 0 ? piece.width : font.widthOfTextAtSize(piece.text, size);
    }
  }

  footers(title: string): void {
    const pages = this.pdf.getPages();
    const short = [...title].length > 60 ? `${[...title].slice(0, 59).join("")}…` : title;
    pages.forEach((p, i) => {
      this.page = p;
      this.y = page.margin - 24;
      const text = `${short}  ·  ${i + 1} / ${pages.length}`;
      this.draw({ pieces: this.measure.runs(text, style.muted, 8), width: 0 }, page.margin, 8);
    });
  }
}
