import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import * as fontkit from "@pdf-lib/fontkit";
import { srt } from "../../src/exports/formats/srt.ts";
import { vtt } from "../../src/exports/formats/vtt.ts";
import { csv, csvField } from "../../src/exports/formats/csv.ts";
import { txt } from "../../src/exports/formats/txt.ts";
import { chunkStream, lightChunks } from "../../src/exports/formats/index.ts";
import { cleanText, clock, shortClock, type ExportSegment } from "../../src/exports/formats/text.ts";
import { exportFileName } from "../../src/exports/file-name.ts";
import { attachmentDisposition } from "../../src/blobs/content-disposition.ts";
import { isMostlyRtl } from "../../src/exports/document.ts";
import { defaultPrimaryFont, extractFace, loadFont } from "../../src/exports/fonts.ts";
import { Measure } from "../../src/exports/pdf-layout.ts";
import { planExport as planFrom, supersededKeys, wasRequested } from "../../src/exports/plan.ts";
import type { TranscriptSource } from "../../src/tasks/transcripts.ts";
import type { Segment } from "../../src/tasks/segments.ts";
import type { RecordedEvent } from "../../src/core/event.ts";
import { deciderSpec } from "../support/decider-spec.ts";
import { taskDecider } from "../../src/tasks/decider.ts";
import type { TaskEvent } from "../../src/tasks/events.ts";
import { NotFoundError } from "../../src/core/errors.ts";
import { prerequisite } from "../support/prerequisites.ts";

const seg = (start: number, end: number, text: string, speaker: string | null = null): ExportSegment => ({ start, end, text, speaker });

describe("clock times", () => {
  test("HH:MM:SS with a comma for srt and a dot for vtt; hours past 99 minutes and past 99 hours", () => {
    expect(clock(0, ",")).toBe("00:00:00,000");
    expect(clock(5_999_999, ",")).toBe("01:39:59,999"); // 99 min 59.999 s is 1 h 39 min
    expect(clock(6_000_000, ".")).toBe("01:40:00.000");
    expect(clock(360_000_000 + 61_001, ".")).toBe("100:01:01.001");
    expect(clock(-5, ",")).toBe("00:00:00,000");
    expect(shortClock(61_000)).toBe("1:01");
    expect(shortClock(3_600_000)).toBe("1:00:00");
  });
});

describe("clean text", () => {
  test("drops controls and noncharacters, keeps tabs, line breaks, bidi marks and emoji; mends lone surrogates", () => {
    expect(cleanText("a\u0000b\u0007c\u001bd\u007fe\u0085f\u009fg\ufffeh")).toBe("abcde\nfgh");
    expect(cleanText("x\r\ny\rz\u2028w")).toBe("x\ny\nz\nw");
    expect(cleanText("\u200f\u05e9 😀\td")).toBe("\u200f\u05e9 😀\td");
    expect(cleanText("bad \ud800 pair")).toBe("bad \ufffd pair");
  });
});

describe("srt", () => {
  test("numbered cues in time order, comma times, speaker prefix, blank line after each", () => {
    const out = srt([seg(5000, 6000, "second", "Bo"), seg(0, 1500, "first", "Ann")]);
    expect(out).toBe("1\n00:00:00,000 --> 00:00:01,500\nAnn: first\n\n2\n00:00:05,000 --> 00:00:06,000\nBo: second\n\n");
  });

  test("no blank line inside a cue, no timing arrow in text, no markup, no empty cue", () => {
    // Shaped for reading: the words of nearby segments of one speaker share a cue and its line (subtitle-cues.ts).
    const out = srt([seg(0, 1000, "a\n\n\nb\r\n  c  "), seg(1000, 2000, "  \n "), seg(2000, 3000, "x --> y <b>bold</b> {\\an8}")]);
    expect(out).toBe("1\n00:00:00,000 --> 00:00:03,000\na b c x -> y <\u200bb>bold<\u200b/b> {\u200b\\an8}\n\n");
  });

  test("long text is cut into cues of two lines of at most 42 characters; a word wider than a line into pieces, emoji never cut", () => {
    const cues = (out: string) =>
      out
        .trimEnd()
        .split("\n\n")
        .map((cue) => cue.split("\n").slice(2));
    const words = cues(srt([seg(0, 60_000, "word ".repeat(400).trim())]));
    expect(words.length).toBeGreaterThan(10);
    for (const lines of words) {
      expect(lines.length).toBeLessThanOrEqual(2);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(42);
    }
    expect(words.flat().join(" ")).toBe("word ".repeat(400).trim());
    const emoji = cues(srt([seg(0, 10_000, "😀".repeat(100))])).flat();
    expect(emoji.map((line) => Array.from(line).length)).toEqual([42, 42, 16]);
    expect(emoji.join("")).toBe("😀".repeat(100));
  });

  test("an end before its start is clamped to the start", () => {
    expect(srt([seg(2000, 1000, "x")])).toContain("00:00:02,000 --> 00:00:02,000");
  });
});

describe("vtt", () => {
  test("WEBVTT header, dot times, voice spans, escaped text", () => {
    const out = vtt([seg(0, 1500, "Tom & Jerry <3 --> end", "A <B>"), seg(100_000_000, 100_000_500, "late")]);
    expect(out).toBe(
      "WEBVTT\n\n1\n00:00:00.000 --> 00:00:01.500\n<v A &lt;B&gt;>Tom &amp; Jerry &lt;3 --&gt; end\n\n2\n27:46:40.000 --> 27:46:40.500\nlate\n\n",
    );
  });

  test("an empty transcript is just the header", () => {
    expect(vtt([])).toBe("WEBVTT\n\n");
  });
});

/** A strict RFC 4180 reader, to check that what we write reads back as written. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++;
      else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') {
      if (field !== "") throw new Error(`quote inside an unquoted field at ${i}`);
      quoted = true;
    } else if (c === ",") row.push(field), (field = "");
    else if (c === "\r" && text[i + 1] === "\n") row.push(field), rows.push(row), (row = []), (field = ""), i++;
    else if (c === "\n" || c === "\r") throw new Error(`bare line break at ${i}`);
    else field += c;
  }
  if (quoted) throw new Error("unterminated quote");
  if (field !== "" || row.length > 0) throw new Error("last row not ended with CRLF");
  return rows;
}

describe("csv", () => {
  test("BOM, header, CRLF rows; quoting per RFC 4180 reads back exactly", () => {
    const text = 'He said "hi", then\nleft; 你好 😀';
    const out = csv([seg(0, 1234, text, "Ann, Jr."), seg(3_600_000, 3_600_001, "plain")]);
    expect(out.startsWith("\uFEFFid,start,end,start_ms,end_ms,speaker,text\r\n")).toBe(true);
    const rows = parseCsv(out.slice(1));
    expect(rows).toEqual([
      ["id", "start", "end", "start_ms", "end_ms", "speaker", "text"],
      ["1", "00:00:00.000", "00:00:01.234", "0", "1234", "Ann, Jr.", 'He said "hi", then\r\nleft; 你好 😀'],
      ["2", "01:00:00.000", "01:00:00.001", "3600000", "3600001", "", "plain"],
    ]);
  });

  test("cells a spreadsheet would run as formulas are kept as text", () => {
    const rows = parseCsv(csv([seg(0, 1, '=HYPERLINK("x")', "@me"), seg(1, 2, "-5 degrees"), seg(2, 3, "+1")], { bom: false }));
    expect(rows.slice(1).map((r) => [r[5], r[6]])).toEqual([
      ["'@me", '\'=HYPERLINK("x")'],
      ["", "'-5 degrees"],
      ["", "'+1"],
    ]);
  });

  test("csvField quotes only what needs it", () => {
    expect(csvField("a")).toBe("a");
    expect(csvField('a"b')).toBe('"a""b"');
    expect(csvField("a\rb")).toBe('"a\rb"');
  });
});

describe("txt", () => {
  test("one segment per line, speaker labels when present, line breaks flattened", () => {
    expect(txt([seg(0, 1, "Hello\nthere", "Ann"), seg(1, 2, "no speaker"), seg(2, 3, "", "Bo"), seg(3, 4, "")])).toBe("Ann: Hello there\nno speaker\nBo:\n\n");
  });
});

describe("streaming", () => {
  test("chunks become the same bytes as the whole string, in ~64 KiB pieces", async () => {
    const segments = Array.from({ length: 5000 }, (_, i) => seg(i * 1000, i * 1000 + 900, `segment ${i} 你好`, i % 2 ? "Ann" : null));
    const stream = chunkStream(lightChunks("srt", segments));
    const parts: Uint8Array[] = [];
    for await (const part of stream) parts.push(part);
    expect(parts.length).toBeGreaterThan(1);
    expect(Buffer.concat(parts).toString("utf8")).toBe(srt(segments));
  });
});

describe("file names", () => {
  test("the task's name, made safe for file systems, with the format's extension", () => {
    expect(exportFileName("会议记录 2025", "pdf")).toBe("会议记录 2025.pdf");
    expect(exportFileName('a/b\\c:d*e?f"g<h>i|j', "txt")).toBe("a_b_c_d_e_f_g_h_i_j.txt");
    expect(exportFileName(" ..\u0000 ", "srt")).toBe("transcript.srt");
    expect(exportFileName("x".repeat(300), "vtt")).toBe(`${"x".repeat(200)}.vtt`);
  });

  test("Content-Disposition carries an ASCII filename and the UTF-8 name in filename* (RFC 6266)", () => {
    expect(attachmentDisposition("Réunion 会议.pdf")).toBe(`attachment; filename="R_union __.pdf"; filename*=UTF-8''R%C3%A9union%20%E4%BC%9A%E8%AE%AE.pdf`);
  });
});

describe("right-to-left detection", () => {
  test("Hebrew and Arabic read right to left; a word of it in English does not", () => {
    expect(isMostlyRtl("שלום עולם")).toBe(true);
    expect(isMostlyRtl("مرحبا بالعالم")).toBe(true);
    expect(isMostlyRtl("The word שלום means peace in Hebrew")).toBe(false);
  });
});

const haveFont = prerequisite(`the PDF font ${defaultPrimaryFont}`, existsSync(defaultPrimaryFont), "apt-get install fonts-wqy-microhei; npm test installs it");
describe.skipIf(!haveFont)("PDF fonts and line breaking", () => {
  test("a face taken out of the TrueType collection is a font of its own that covers CJK and Hangul", () => {
    const face = extractFace(new Uint8Array(readFileSync(defaultPrimaryFont)), 0);
    const font = fontkit.create(face);
    expect(font.postscriptName).toBe("WenQuanYiMicroHei");
    for (const char of "Aé你好こんにちは안녕") expect(font.hasGlyphForCodePoint(char.codePointAt(0)!)).toBe(true);
  });

  test("lines never pass the width: words, CJK characters and a 10,000-character word are cut to fit", () => {
    const measure = new Measure([loadFont(defaultPrimaryFont), null]);
    const style = { color: "text" } as const;
    for (const text of ["word ".repeat(500), "你好世界".repeat(300), "x".repeat(10_000)]) {
      const lines = measure.wrap([{ text, style }], 10, 400);
      expect(lines.length).toBeGreaterThan(1);
      for (const line of lines) expect(line.pieces.reduce((w, p) => w + p.width, 0)).toBeLessThanOrEqual(400.001);
      expect(
        lines
          .map((l) => l.pieces.map((p) => p.text).join(""))
          .join("")
          .replace(/\s/g, ""),
      ).toBe(text.replace(/\s/g, ""));
    }
  });

  test("characters no font has (emoji without a fallback) are left out, not drawn as boxes", () => {
    const measure = new Measure([loadFont(defaultPrimaryFont), null]);
    expect(measure.runs("a😀b", { color: "text" }, 10).map((p) => p.text)).toEqual(["ab"]);
  });
});

describe("export plan (what the worker decides from the task's stream)", () => {
  let position = 0;
  const at = (revision: number, type: string, data: Record<string, unknown>, time = `2025-01-01T00:00:0${revision}.000Z`): RecordedEvent => ({
    id: `e${revision}`,
    type,
    data,
    metadata: { correlationId: "c", causationId: null, userId: null, system: "test" },
    streamName: "task-7",
    revision,
    position: ++position,
    time,
  });
  const created = at(0, "TaskCreated", {
    taskId: 7,
    userId: 3,
    name: "T",
    file: null,
    path: "p",
    disk: "objstore",
    size: null,
    duration: 9,
    cost: null,
    url: null,
    speakerDiarization: false,
    segments: [seg(0, 1000, "hi")],
    createdAt: "2025-01-01T00:00:00.000Z",
  });
  const finished = at(1, "TaskFinished", {
    userId: 3,
    taskId: 7,
    attempt: 1,
    name: "T",
    segments: null,
    duration: 9,
    cost: null,
    summary: null,
    mindmap: null,
  });
  // These events carry their segments inline, as events did before transcripts moved to blobs.
  const inline = { segmentsOf: async (source: TranscriptSource | null) => (source?.segments ?? null) as Segment[] | null };
  const planExport = (events: RecordedEvent[], format: "pdf" | "docx") => planFrom(events, format, inline);
  const version = "20250101000000000"; // TaskCreated's time: the finish brought no new segments

  test("plans the current version, then nothing once it is made and nothing changed", async () => {
    const plan = (await planExport([created, finished], "pdf"))!;
    expect(plan).toMatchObject({ taskId: 7, userId: 3, version, document: { name: "T", durationSeconds: 9 } });
    const made = at(2, "ExportGenerated", { userId: 3, taskId: 7, format: "pdf", version, key: `exports/7/${version}.pdf`, size: 10 });
    expect(await planExport([created, finished, made], "pdf")).toBeNull();
    expect(await planExport([created, finished, made], "docx")).not.toBeNull();
    // A rename after it: the same version, made again (the name is in the document).
    expect(await planExport([created, finished, made, at(3, "TaskRenamed", { userId: 3, name: "U" })], "pdf")).toMatchObject({
      version,
      document: { name: "U" },
    });
  });

  test("an edit moves the version; older files are superseded; requests are answered once", async () => {
    const made = at(2, "ExportGenerated", { userId: 3, taskId: 7, format: "pdf", version, key: "exports/7/old.pdf", size: 10 });
    const edited = at(3, "TranscriptEdited", { userId: 3, segments: [seg(0, 1, "new")] });
    const plan = (await planExport([created, finished, made, edited], "pdf"))!;
    expect(plan.version).toBe("20250101000003000");
    const requested = at(4, "ExportRequested", { userId: 3, taskId: 7, format: "pdf", version: plan.version, requestedAt: "x" });
    expect(wasRequested([created, finished, made, edited, requested], "pdf", plan.version)).toBe(true);
    const madeNew = at(5, "ExportGenerated", { userId: 3, taskId: 7, format: "pdf", version: plan.version, key: "exports/7/new.pdf", size: 10 });
    const all = [created, finished, made, edited, requested, madeNew];
    expect(wasRequested(all, "pdf", plan.version)).toBe(false);
    expect(supersededKeys(all, "pdf")).toEqual(["exports/7/old.pdf"]);
    expect(await planExport(all, "pdf")).toBeNull();
  });

  test("no transcript, or a deleted task: nothing to make", async () => {
    const bare = at(0, "TaskCreated", { ...(created.data as object), segments: null });
    expect(await planExport([bare], "pdf")).toBeNull();
    expect(await planExport([created, finished, at(2, "TaskDeleted", { userId: 3, wasInFlight: false, attempt: 1 })], "pdf")).toBeNull();
  });
});

describe("task decider: export commands", () => {
  const spec = deciderSpec(taskDecider);
  const created: TaskEvent = {
    type: "TaskCreated",
    data: {
      taskId: 7,
      userId: 3,
      name: "T",
      file: null,
      path: "p",
      disk: "objstore",
      size: null,
      duration: null,
      cost: null,
      url: null,
      speakerDiarization: false,
      transcript: null,
      createdAt: "2025-01-01T00:00:00.000Z",
    },
  };

  test("RequestExport records who asked for which version, and when", () => {
    spec
      .given([created])
      .when({ type: "RequestExport", format: "pdf", version: "20250101000000000", now: "2025-01-02T00:00:00.000Z" })
      .then([
        { type: "ExportRequested", data: { userId: 3, taskId: 7, format: "pdf", version: "20250101000000000", requestedAt: "2025-01-02T00:00:00.000Z" } },
      ]);
  });

  test("RecordExport says whether it answers a request", () => {
    spec
      .given([created])
      .when({ type: "RecordExport", format: "docx", version: "1", key: "exports/7/1.docx", size: 5, requested: true })
      .then([{ type: "ExportGenerated", data: { userId: 3, taskId: 7, format: "docx", version: "1", key: "exports/7/1.docx", size: 5, requested: true } }]);
    spec
      .given([created])
      .when({ type: "RecordExport", format: "docx", version: "1", key: "k", size: 5 })
      .then([{ type: "ExportGenerated", data: { userId: 3, taskId: 7, format: "docx", version: "1", key: "k", size: 5 } }]);
  });

  test("a deleted task takes no export command", () => {
    spec
      .given([created, { type: "TaskDeleted", data: { userId: 3, taskId: 7, wasInFlight: true, attempt: 1 } }])
      .when({ type: "RequestExport", format: "pdf", version: "1", now: "x" })
      .thenThrows(NotFoundError);
  });
});
