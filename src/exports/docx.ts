import { AlignmentType, Document, HeadingLevel, Packer, Paragraph, TextRun, type IRunOptions } from "docx";
import { documentDate, documentDuration, isMostlyRtl, type ExportDocument } from "./document.ts";
import { cleanText, shortClock, speakerLabel } from "./formats/text.ts";

/** Fonts named per script; Word and LibreOffice substitute what a machine lacks (metric-compatible where they can). */
const font = { ascii: "Arial", hAnsi: "Arial", eastAsia: "Microsoft YaHei", cs: "Arial" };
const muted = "737373";
const accent = "0D4D99";
/** The transcript text starts this far in (twentieths of a point); the start time hangs in the column before it. */
const textIndent = 1000; // twentieths of a point

/**
 * The transcript as a Word document (`docx`): title, date and duration, summary, then one paragraph per
 * segment: start time, tab, speaker in bold, text. Right-to-left segments are bidirectional paragraphs
 * with right-to-left runs. Text is cleaned of characters XML forbids (controls), which would make the
 * file unreadable.
 */
export async function renderDocx(source: ExportDocument): Promise<Uint8Array> {
  const title = cleanText(source.name).replace(/\s+/g, " ");
  const children: Paragraph[] = [
    new Paragraph({ heading: HeadingLevel.TITLE, children: [new TextRun({ text: title })] }),
    new Paragraph({
      children: [
        new TextRun({
          text: `${documentDate(source.createdAt)}  ·  Duration ${documentDuration(source.durationSeconds)}  ·  ${source.segments.length} segments`,
          color: muted,
        }),
      ],
    }),
  ];
  const summary = source.summary ? cleanText(source.summary).trim() : "";
  if (summary) {
    children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun("Summary")] }));
    for (const paragraph of summary.split(/\n+/)) children.push(textParagraph([{ text: paragraph }], paragraph));
  }
  children.push(new Paragraph({ heading: HeadingLevel.HEADING_1, children: [new TextRun("Transcript")] }));
  for (const segment of source.segments) {
    const text = cleanText(segment.text).replace(/\s+/g, " ").trim();
    const speaker = speakerLabel(segment.speaker);
    const rtl = isMostlyRtl(text);
    const runs = [new TextRun({ text: shortClock(segment.start), style: "SegmentTime" }), new TextRun("\t")];
    if (speaker) runs.push(new TextRun({ text: `${speaker}: `, style: "Speaker", rightToLeft: rtl || undefined }));
    runs.push(new TextRun({ text, rightToLeft: rtl || undefined }));
    // Indent and spacing live in the "Segment" style (3,000 paragraphs repeat none of it); the hanging indent is the tab stop.
    children.push(new Paragraph({ style: "Segment", children: runs, ...(rtl && { bidirectional: true, alignment: AlignmentType.END }) }));
  }
  const document = new Document({
    creator: "Scribe",
    title,
    description: `Transcript of ${title}`,
    styles: {
      default: { document: { run: { font, size: 21 } } },
      paragraphStyles: [
        {
          id: "Segment",
          name: "Transcript segment",
          basedOn: "Normal",
          quickFormat: true,
          paragraph: { indent: { left: textIndent, hanging: textIndent }, spacing: { after: 80 } },
        },
      ],
      characterStyles: [
        { id: "SegmentTime", name: "Segment time", run: { color: muted } },
        { id: "Speaker", name: "Speaker", run: { bold: true, color: accent } },
      ],
    },
    sections: [{ children }],
  });
  return new Uint8Array(await Packer.toBuffer(document));
}

function textParagraph(runs: IRunOptions[], text: string): Paragraph {
  const rtl = isMostlyRtl(text);
  return new Paragraph({ children: runs.map((run) => new TextRun({ ...run, rightToLeft: rtl })), bidirectional: rtl, spacing: { after: 120 } });
}
